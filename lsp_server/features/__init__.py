"""One module per LSP feature: a plain function over a `DocumentSnapshot`, and `register(server)`."""
