"""Development tools (benchmarks, the soak, the server load test). Nothing imports this package."""
