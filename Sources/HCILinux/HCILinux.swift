// HCILinux module; see README.md.
