"""The terminal user interface: the command line, terminal play and move building."""
