"""The one rules record (issue 45): ``Rules.to_record`` writes ``{name, overrides}`` and
``rules_from_record`` / ``rules_of_file`` read it back, for every file the project stores."""

from __future__ import annotations

import pytest

from paohuzi_env.game.engine import Game, replay_record
from paohuzi_env.game.rules import get_rules, preset_names, rules_from_record, rules_of_file


@pytest.mark.parametrize("name", preset_names())
def test_presets_round_trip(name):
    rules = get_rules(name)
    assert rules.to_record() == {"name": name, "overrides": {}}
    assert rules_from_record(rules.to_record()) == rules


def test_overrides_round_trip_and_hand_records_carry_them():
    rules = get_rules("huaihua", zimo_15=False, min_huxi=10, fans={"红胡": 3})
    rec = rules.to_record()
    assert rec["name"] == "huaihua" and rec["overrides"]["min_huxi"] == 10
    assert rules_from_record(rec) == rules
    g = Game(rules, seed=3)
    while not g.done:
        g.step(g.legal_actions()[0])
    assert g.record()["rules"] == rec
    assert replay_record(Game, g.record()).rules == rules


def test_bad_records_name_what_is_wrong():
    with pytest.raises(ValueError, match="a rules record is"):
        rules_from_record("huaihua")
    with pytest.raises(ValueError, match="a rules record is"):
        rules_from_record({"overrides": {}})
    with pytest.raises(ValueError, match="overrides are a mapping"):
        rules_from_record({"name": "huaihua", "overrides": [1]})
    with pytest.raises(ValueError, match="unknown"):
        rules_from_record({"name": "nowhere"})


def test_files_read_the_record_then_the_config():
    rules = get_rules("classic", min_huxi=12)
    assert rules_of_file({"rules": rules.to_record()}) == rules
    assert rules_of_file({"config": {"rules": "classic", "rules_overrides": {"min_huxi": 12}}}) == rules
    assert rules_of_file({"config": {"rules": "classic"}}) == get_rules("classic")
    assert rules_of_file({}) == get_rules()


def test_label_runs_keep_their_rules_for_departures():
    # departures.py read meta["config"]["rules"] alone (issue 45 asked whether that dropped
    # overrides). The labeller takes a preset name only (LabelConfig.rules: str, no overrides), so
    # no label run had overrides to drop; departures and replay now read the run's rules through
    # the one reader, which keeps overrides wherever a meta carries them.
    from paohuzi_training.stages.label import LabelConfig, run_rules

    meta = LabelConfig(hands=1, rules="yongzhou").meta()
    assert "rules_overrides" not in meta["config"]
    assert run_rules(meta) == get_rules("yongzhou")
    meta["config"]["rules_overrides"] = {"min_huxi": 12}
    assert run_rules(meta) == get_rules("yongzhou", min_huxi=12)
