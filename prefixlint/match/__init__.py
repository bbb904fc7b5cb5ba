"""Matching: the exact-token shared prefix between requests, and what each engine reuses of it."""
