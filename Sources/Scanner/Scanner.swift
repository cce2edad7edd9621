// Scanner module; see README.md.
