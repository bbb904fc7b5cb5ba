"""`prefixlint transcript`: a multi-turn chat rendered turn by turn, with the cause of every loss."""
