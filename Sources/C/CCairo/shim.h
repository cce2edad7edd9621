// Cairo 2-D graphics (Debian libcairo2-dev): image (PNG), SVG and PDF surfaces from one drawing.
#include <cairo.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>
