"""Schmier's measuring tools, run from the repository's root as `python -m bench.<tool>`.

`bench/README.md` says what each tool measures, its command and where its results go.
`bench.kit` is what the tools share with the test suite (`tests/support` imports it):
the protocol client, the server starter, free ports and Redis key clean-up.
"""
