"""Evaluation: the duplicate-deal harness (:mod:`.evaluate`, ``paohuzi-eval``), its batched form
(:mod:`.batched_eval`), the journal of a long run (:mod:`.journal`), the AIVAT correction
(:mod:`.aivat`), a game's row (:mod:`.rows`) and the plots (:mod:`.plot`). It reads networks
(:mod:`paohuzi_training.nets`) and nothing that trains them."""
