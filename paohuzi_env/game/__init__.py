"""The rules core: cards, rule sets, groups, 吃/比, scoring and the engine (R-* ids).

It imports nothing above it.
"""
