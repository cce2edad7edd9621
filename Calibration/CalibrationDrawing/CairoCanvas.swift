import CCairo

/// One Cairo drawing target: a PNG (image surface written at the end), an SVG or a PDF file, chosen by the
/// file's extension, so the same drawing code makes all three.
final class CairoCanvas {
    /// The output kinds.
    enum Format: String, CaseIterable {
        case png, svg, pdf
    }

    let surface: OpaquePointer
    let cr: OpaquePointer
    let format: Format
    let path: String

    /// Opens a canvas of the given size in points (pixels for PNG).
    init(path: String, width: Double, height: Double) throws(DrawingError) {
        let ext = path.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        guard let format = Format(rawValue: ext) else {
            throw DrawingError.unsupportedFormat(path: path)
        }
        self.format = format
        self.path = path
        switch format {
        case .png: surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .svg: surface = cairo_svg_surface_create(path, width, height)
        case .pdf: surface = cairo_pdf_surface_create(path, width, height)
        }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            let reason = String(cString: cairo_status_to_string(cairo_surface_status(surface)))
            cairo_surface_destroy(surface)
            throw DrawingError.cairo(path: path, reason: reason)
        }
        cr = cairo_create(surface)
    }

    /// Finishes the drawing and writes the file.
    func finish() throws(DrawingError) {
        defer {
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
        }
        cairo_surface_flush(surface)
        if format == .png {
            let status = cairo_surface_write_to_png(surface, path)
            guard status == CAIRO_STATUS_SUCCESS else {
                throw DrawingError.cairo(path: path, reason: String(cString: cairo_status_to_string(status)))
            }
        }
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw DrawingError.cairo(path: path, reason: String(cString: cairo_status_to_string(status)))
        }
    }

    func color(_ c: ColorScale.RGB, alpha: Double = 1) { cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha) }
    func color(_ r: Double, _ g: Double, _ b: Double, alpha: Double = 1) { cairo_set_source_rgba(cr, r, g, b, alpha) }

    /// Turns antialiasing off (crisp, seamless grid cells) or back on.
    func antialias(_ on: Bool) { cairo_set_antialias(cr, on ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE) }

    func rectangle(_ x: Double, _ y: Double, _ w: Double, _ h: Double) { cairo_rectangle(cr, x, y, w, h) }
    func fill() { cairo_fill(cr) }
    func stroke(width: Double) {
        cairo_set_line_width(cr, width)
        cairo_stroke(cr)
    }
    func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        cairo_move_to(cr, x0, y0)
        cairo_line_to(cr, x1, y1)
    }
    /// A closed polygon path.
    func polygon(_ points: [(Double, Double)]) {
        guard let first = points.first else { return }
        cairo_move_to(cr, first.0, first.1)
        for p in points.dropFirst() { cairo_line_to(cr, p.0, p.1) }
        cairo_close_path(cr)
    }

    func circle(_ x: Double, _ y: Double, _ r: Double) {
        cairo_new_sub_path(cr)
        cairo_arc(cr, x, y, r, 0, 2 * Double.pi)
    }

    /// Text with its left baseline at (x, y).
    func text(_ s: String, _ x: Double, _ y: Double, size: Double, bold: Bool = false) {
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                               bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
        cairo_move_to(cr, x, y)
        cairo_show_text(cr, s)
    }

    /// Width of a text at a size.
    func textWidth(_ s: String, size: Double, bold: Bool = false) -> Double {
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                               bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cr, s, &extents)
        return extents.x_advance
    }

    /// Paints a PNG file scaled into the rectangle; false when it cannot be read.
    func image(png: String, x: Double, y: Double, width: Double, height: Double, alpha: Double) -> Bool {
        let image = cairo_image_surface_create_from_png(png)
        defer { cairo_surface_destroy(image) }
        guard cairo_surface_status(image) == CAIRO_STATUS_SUCCESS else { return false }
        let w = Double(cairo_image_surface_get_width(image)), h = Double(cairo_image_surface_get_height(image))
        guard w > 0, h > 0 else { return false }
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, width / w, height / h)
        cairo_set_source_surface(cr, image, 0, 0)
        cairo_paint_with_alpha(cr, alpha)
        cairo_restore(cr)
        return true
    }
}
