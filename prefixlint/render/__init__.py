"""Render: turn templates and chat messages into the exact text a server tokenizes."""
