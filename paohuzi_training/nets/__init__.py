"""The networks and their files: the actor-critic (:mod:`.model`), checkpoints and exported
policies (:mod:`.checkpoint`), a network as an agent (:mod:`.policy`), atomic writes
(:mod:`.files`) and the per-tick buffers hands are stepped with (:mod:`.ticks`). The lowest layer
of the trainer: it imports nothing else of it but its config."""
