"""One module per subcommand; heavy imports stay inside the functions."""
