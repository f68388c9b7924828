"""The agent interface and the rule-based bots (random, greedy, expert) with their registry."""
