"""`prefixlint server`: the Language Server Protocol server that puts `check` into the editor.

One module per concern, none importing pygls at the top except `app` (the wiring):
`text` (positions: prefixlint's 1-based line/column in characters against LSP's 0-based
UTF-16 units), `documents` (check an open document's unsaved text),
`diagnostics` (findings and errors as LSP diagnostics), `actions` (quick fixes, fix all, a
suppression comment), `hover` (the measured reuse of a placeholder), `settings` (the same
configuration discovery as `check`, with the client's `initializationOptions` winning), and
`app` (the pygls wiring: which request runs what, debouncing, shutdown).
"""
