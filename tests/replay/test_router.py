"""`replay --replicas N --router POLICY`: the policies' decisions and the cluster's figures,
worked out by hand on token-id prompts (a completions `prompt` of ids is taken as it is)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.cli import cli
from prefixlint.engines.request import Request
from prefixlint.engines.simulators import VllmSimulator
from prefixlint.replay.cluster import Cluster, Speed
from prefixlint.replay.routing import Arrival, KvCost, PrefixAware, RoundRobin, Session


class State:
    def __init__(self, load=0, active_blocks=0, pending_prefill=0, inserted_tokens=0):
        self.load, self.active_blocks = load, active_blocks
        self.pending_prefill, self.inserted_tokens = pending_prefill, inserted_tokens


def arrival(prompt_tokens, cached, session="s"):
    return Arrival(prompt_tokens, 16, session, lambda i: cached[i])


def test_round_robin_cycles():
    policy, replicas = RoundRobin(), [State(), State(), State()]
    assert [policy.choose(arrival(10, [0, 0, 0]), replicas) for _ in range(5)] == [0, 1, 2, 0, 1]


def test_prefix_aware_follows_sglang_thresholds():
    policy = PrefixAware()
    # Imbalanced: 70 - 5 = 65 > 64 and 70 > 1.5 x 5: the least loaded, whatever is cached.
    assert policy.choose(arrival(100, [96, 0]), [State(load=70), State(load=5)]) == 1
    # 64 apart is not more than 64: balanced; 48 of 100 tokens cached = 0.48 > 0.3.
    assert policy.choose(arrival(100, [48, 0]), [State(load=64), State(load=0)]) == 0
    # 16 of 100 = 0.16 <= 0.3: the replica with the smallest tree.
    replicas = [State(inserted_tokens=500), State(inserted_tokens=200)]
    assert policy.choose(arrival(100, [16, 0]), replicas) == 1
    # The same match on both: the less loaded.
    assert policy.choose(arrival(100, [64, 64]), [State(load=3), State(load=2)]) == 1


def test_kv_cost_is_dynamos_logit():
    # 100 tokens, 16-token blocks. Replica 0: 3 blocks cached, 10 active blocks:
    # prefill (100 - 48) / 16 = 3.25, new blocks 7 - 3 = 4: 3.25 + 4 + 10 = 17.25.
    # Replica 1: nothing cached, idle: 100 / 16 + 7 = 13.25. Weight 2: 2 x 3.25 + 4 + 10 = 20.5 against 19.5.
    policy = KvCost()
    request, replicas = arrival(100, [48, 0]), [State(active_blocks=10), State()]
    assert policy.logit(request, replicas[0], 0) == 17.25
    assert policy.logit(request, replicas[1], 1) == 13.25
    assert policy.choose(request, replicas) == 1
    assert KvCost(overlap_score_weight=2.0).logit(request, replicas[0], 0) == 20.5
    # Prefill still in flight counts as prefill: 800 tokens pending make replica 1 cost 63.25.
    assert policy.logit(request, State(pending_prefill=800), 1) == 63.25


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=8), min_size=50, max_size=200, unique=True))
def test_session_is_consistent_hashing(keys):
    """Adding a replica moves keys only onto the new replica (the ring's property)."""
    four, five = Session(4), Session(5)
    for key in keys:
        before = four.choose(arrival(10, [0] * 4, key), [State()] * 4)
        after = five.choose(arrival(10, [0] * 5, key), [State()] * 5)
        assert after in (before, 4)
        assert before == four.choose(arrival(10, [0] * 4, key), [State()] * 4)



@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=14), min_size=1, max_size=30),
       st.integers(1, 4), st.sampled_from([None, 3, 8]))
def test_round_robin_replica_is_a_replay_of_its_share(prompts, n, capacity):
    """Replica r of a round-robin cluster sees requests r, r + n, ...: exactly a plain replay of those."""
    cluster = Cluster([VllmSimulator(4, capacity) for _ in range(n)], RoundRobin(), 4)
    for line, prompt in enumerate(prompts, 1):
        cluster.serve(Request(line, "g", prompt))
    for r, replica in enumerate(cluster.replicas):
        alone = VllmSimulator(4, capacity)
        cached = sum(alone.serve(Request(1, "g", p)).cached_tokens for p in prompts[r::n])
        assert replica.tally.cached_tokens == cached
        assert replica.tally.requests == len(prompts[r::n])
        assert replica.sim.evicted_blocks == alone.evicted_blocks


def test_without_timestamps_load_is_everything_routed_so_far():
    """Identical 8-token prompts: all stick to replica 0 (100% match) until it holds 65 more
    requests than replica 1 (65 > 64 and 65 > 1.5 x 0): the 66th goes to replica 1."""
    cluster = Cluster([VllmSimulator(4), VllmSimulator(4)], PrefixAware(), 4)
    chosen = []
    for line in range(66):
        cluster.serve(Request(line, "g", list(range(8))))
        chosen.append(cluster.replicas[1].tally.requests)
    assert chosen[:65] == [0] * 65 and chosen[65] == 1
    assert cluster.replicas[0].load == 65 and cluster.replicas[0].active_blocks == 65 * 2


def test_with_timestamps_finished_requests_leave():
    """A request in flight from t=0 for 10 s (the log's duration) counts until t=10;
    without a duration, 48 uncached tokens at 16 tokens/s and 4 generated at 2/s take 5 s."""
    cluster = Cluster([VllmSimulator(16), VllmSimulator(16)], RoundRobin(), 16, Speed(16.0, 2.0))
    cluster.serve(Request(1, "g", list(range(48)), timestamp=0.0, duration=10.0))
    cluster.serve(Request(2, "g", list(range(100, 148)), [1, 2, 3, 4], timestamp=9.0))
    first, second = cluster.replicas
    assert (first.load, second.load) == (1, 1)
    assert second.pending_prefill == 48  # its prefill runs from 9 s to 12 s
    cluster.serve(Request(3, "g", [7], timestamp=12.0))
    assert (first.load, second.pending_prefill) == (1, 0)  # the [7] request went to replica 0
    cluster.serve(Request(4, "g", [8], timestamp=14.0))
    assert second.load == 1  # the 9 s request ended at 14 s; [8] took its place


def _log(tmp_path, lines):
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


PREFIX = list(range(1, 41))


def shared_prefix_log(tmp_path):
    """Four 48-token prompts: 40 shared tokens (two whole 16-token blocks), then their own 8."""
    return _log(tmp_path, [{"prompt": PREFIX + [1000 + 10 * i + k for k in range(8)]} for i in range(4)])


def run(args):
    result = CliRunner().invoke(cli, ["replay", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_router_all_side_by_side(tmp_path):
    """Worked out by hand (no timestamps: load = everything routed so far):
    - round-robin: 1 -> A, 2 -> B cold; 3 -> A and 4 -> B reuse the two shared blocks: 64.
    - session: no user, so the first block decides: all on one replica: 3 x 32 = 96.
    - prefix-aware: 1 -> A (nothing cached, smallest tree); then 32 of 48 cached on A (0.67 > 0.3): 96.
    - kv-cost: 1 -> X (a tie); 2: X costs (48-32)/16 + (3-2) + 3 active = 5 < 6 -> X (32);
      3: X costs 1 + 1 + 6 = 8 > 6 -> the other, cold; 4: the other costs 1 + 1 + 3 = 5 < 8 -> 32. 64.
    - random (seed 0) is whatever the seed gives; the global cache: 3 x 32 = 96."""
    data = run([shared_prefix_log(tmp_path), "--replicas", "2", "--router", "all"])
    by_name = {r["router"]: r for r in data["routers"]}
    assert {name: r["cached_tokens"] for name, r in by_name.items() if name != "random"} == {
        "round-robin": 64, "session": 96, "prefix-aware": 96, "kv-cost": 64}
    assert data["cached_tokens"] == 96 and data["prompt_tokens"] == 192 and data["router"] == "all"
    assert [r["requests"] for r in by_name["round-robin"]["replicas"]] == [2, 2]
    assert sorted(r["requests"] for r in by_name["kv-cost"]["replicas"]) == [2, 2]
    assert by_name["round-robin"]["replicas"][0] == {
        "requests": 2, "prompt_tokens": 96, "cached_tokens": 32, "hit_rate": 0.333333, "evicted_blocks": 0}


def test_one_router_reports_replicas(tmp_path):
    data = run([shared_prefix_log(tmp_path), "--replicas", "2", "--router", "round-robin"])
    assert data["cached_tokens"] == 64 and data["router"] == "round-robin"
    assert data["routing"]["replicas"] == 2 and data["routing"]["timestamps"] is False
    assert [r["cached_tokens"] for r in data["replicas"]] == [32, 32]


def test_session_keys_on_user(tmp_path):
    """Two users, alternating, with prompts that share nothing in their first block: sticky
    routing keeps each user's second request where its first was (32 tokens reused each)."""
    lines = []
    for turn in range(2):
        for user in ("ann", "bob"):
            base = [5000 + (0 if user == "ann" else 100) + k for k in range(40)]
            lines.append({"prompt": base + [9000 + turn * 10 + k for k in range(8)], "user": user})
    data = run([_log(tmp_path, lines), "--replicas", "8", "--router", "session"])
    assert data["cached_tokens"] == 64


@pytest.mark.parametrize("args, message", [
    (["--router", "fastest"], "unknown router 'fastest'"),
    (["--replicas", "0"], "0 replicas"),
    (["--replicas", "2", "--prefill-tps", "0"], "must be positive"),
    (["--workers", "0"], "0 workers"),
    (["--workers", "2", "--ray"], "not both"),
])
def test_bad_router_options(tmp_path, args, message):
    result = CliRunner().invoke(cli, ["replay", shared_prefix_log(tmp_path), *args])
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output


def test_sglang_replicas_match_in_their_radix_trees(tmp_path):
    """SGLang (page size 1): a request reuses the 40 tokens it shares with its replica's tree.
    prefix-aware keeps all four on one replica (40 of 48 = 0.83 > 0.3): 3 x 40; round-robin
    splits them: requests 3 and 4 find 40 each."""
    log = shared_prefix_log(tmp_path)
    aware = run([log, "--engine", "sglang", "--replicas", "2", "--router", "prefix-aware"])
    rr = run([log, "--engine", "sglang", "--replicas", "2", "--router", "round-robin"])
    assert (aware["cached_tokens"], rr["cached_tokens"]) == (120, 80)


def test_session_keys_on_a_traces_chat_id(tmp_path):
    """Two chats of a hashed-block trace (512-token blocks), interleaved: each second turn
    finds its first turn's two blocks (1,024 tokens) on the replica its chat_id hashes to;
    round-robin over 8 replicas sends all four to different replicas."""
    lines = [{"timestamp": 1000 * t, "chat_id": chat, "input_length": 1024 + 512 * turn, "output_length": 10,
              "hash_ids": [10 * chat + k for k in range(2 + turn)]}
             for t, (turn, chat) in enumerate([(0, 1), (0, 2), (1, 1), (1, 2)])]
    log = _log(tmp_path, lines)
    assert run([log, "--replicas", "8", "--router", "session"])["cached_tokens"] == 2048
    assert run([log, "--replicas", "8", "--router", "round-robin"])["cached_tokens"] == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=14), min_size=1, max_size=30),
       st.sampled_from(["round-robin", "random", "session", "prefix-aware", "kv-cost"]),
       st.sampled_from([None, 3, 8]), st.integers(1, 4))
def test_every_policy_splits_the_log_without_losing_a_request(prompts, name, capacity, n):
    """Whatever the policy: the replicas' requests add up to the log, and each replica's
    figures are a plain replay of the requests it was given, in order (one replica: the
    plain replay itself)."""
    from prefixlint.replay.routing import make_policy

    cluster = Cluster([VllmSimulator(4, capacity) for _ in range(n)], make_policy(name, n, seed=3), 4)
    given_to: list[list[list[int]]] = [[] for _ in range(n)]
    for line, prompt in enumerate(prompts, 1):
        before = [r.tally.requests for r in cluster.replicas]
        cluster.serve(Request(line, "g", prompt))
        chosen = next(i for i, r in enumerate(cluster.replicas) if r.tally.requests > before[i])
        given_to[chosen].append(prompt)
    assert sum(r.tally.requests for r in cluster.replicas) == len(prompts)
    for replica, share in zip(cluster.replicas, given_to):
        alone = VllmSimulator(4, capacity)
        assert replica.tally.cached_tokens == sum(alone.serve(Request(1, "g", p)).cached_tokens for p in share)
