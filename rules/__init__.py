"""The rule catalog: one YAML file per rule (shipped as package data `prefixlint.catalog`)."""
