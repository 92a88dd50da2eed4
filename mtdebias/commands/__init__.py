"""One module per CLI verb, each with ``add_parser(subparsers)`` and ``run(args)``."""
