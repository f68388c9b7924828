"""Measurements around the trainer, run by hand: where the search departs from a network
(:mod:`.departures`), a network's agreement with the search's labels (:mod:`.agreement`), the
trainer's throughput (:mod:`.bench`) and AIVAT's width against cost (:mod:`.aivat_bench`)."""
