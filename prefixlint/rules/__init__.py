"""Rules: findings, the rule catalog (rules/*.yaml at the repository root), and the checks."""
