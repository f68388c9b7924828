"""Training and evaluation for paohuzi-env: the duplicate-deal harness and the PPO trainer."""
