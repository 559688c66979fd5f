"""`python -m lsp_server`: the same server as `tether lsp`, without the CLI in front."""

from lsp_server.server import main

raise SystemExit(main())
