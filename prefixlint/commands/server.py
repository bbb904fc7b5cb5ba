"""`prefixlint server`: the language server, on standard input and output (`prefixlint.server`)."""

from __future__ import annotations

import click

EXIT_ERROR = 2
INSTALL_HINT = ("prefixlint: error: `prefixlint server` needs the `server` extra (pygls):"
                " pip install 'prefixlint[server]'")


@click.command()
@click.option("--stdio", is_flag=True, default=False,
              help="Talk over standard input and output (the only transport; accepted as editors pass it).")
@click.pass_context
def server(ctx, stdio):
    """Run prefixlint's language server (LSP) for an editor, on standard input and output.

    Diagnostics as you type (the findings of `prefixlint check` on the unsaved text), quick
    fixes, "fix all" and a suppression comment as code actions, and the measured reuse on
    hover. Settings come from the project's configuration, as for `check`, and the client's
    initializationOptions win over it. Set-up for VS Code, Neovim, Helix and Zed: docs/editor.md.
    """
    try:
        import lsprotocol.types  # noqa: F401
        import pygls.lsp.server  # noqa: F401
    except ImportError:
        click.echo(INSTALL_HINT, err=True)
        ctx.exit(EXIT_ERROR)
    from prefixlint.server.app import serve

    ctx.exit(serve())
