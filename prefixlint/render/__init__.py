"""Render: templates and chat conversations to the exact text a server tokenizes, with spans."""
