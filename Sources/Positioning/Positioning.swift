// Positioning module; see README.md.
