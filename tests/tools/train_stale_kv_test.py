#!/usr/bin/env python3
"""Checks --stale-kv in tools/train/train.py (stale_columns, mdlm_loss) and tools/train/model.py:
- a forward that replaces columns' K/V with the ones it captured from the same input is the plain
  forward exactly, and one that replaces none is too;
- a one-layer model's K/V read only each column's token and position, so an earlier state that
  showed the same tokens gives the plain forward exactly; with six layers it does not (the deeper
  K/V saw the masks), and rows whose sequences have no stale columns are untouched;
- in mdlm_loss, only decode-order sequences get stale columns; their earlier state hides every
  position the current state hides (it is earlier in the same decode), and the stale columns are
  positions that state shows, the prompt among them; the loss has a finite gradient;
- the option is refused without --decode-order-mask and for the Dream and AR objectives.

  python3 tests/tools/train_stale_kv_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import os, subprocess, sys, torch
sys.path.insert(0, sys.argv[1])
import common as C
import model as M
import train

torch.manual_seed(0)
prompt = C.encode_prompt("What is 47 + 385?")
resp = C.encode_response("0047 + 0385 = 00432\n#### 432")
ids = torch.tensor([prompt + resp] * 8)
is_resp = torch.zeros_like(ids, dtype=torch.bool)
is_resp[:, len(prompt):] = True
P = len(prompt)

net, _ = train.build_model("mdlm", "compact")
net.eval()
with torch.no_grad():
    layers = []
    plain = net.hidden(ids, capture=layers)
    assert len(layers) == net.c["n_layers"], "one (K, V) per layer"
    every = torch.ones_like(ids, dtype=torch.bool)
    assert torch.equal(net.hidden(ids, stale=(layers, every)), plain), "its own K/V changed the forward"
    assert torch.equal(net.hidden(ids, stale=(layers, ~every)), plain), "no stale column changed the forward"

    earlier = ids.clone()
    earlier[:, P + 4:] = C.MASK                     # the operands' first digits shown, the rest masked
    where = torch.zeros_like(ids, dtype=torch.bool)
    where[:4, :P + 4] = True                        # rows 0-3: the shown columns keep the earlier K/V
    old = []
    net.hidden(earlier, capture=old)
    stale = net.hidden(ids, stale=(old, where))
    assert torch.equal(stale[4:], plain[4:]), "a sequence without stale columns changed"
    assert not torch.allclose(stale[:4], plain[:4]), "six layers' earlier K/V changed nothing"

    one = dict(net.c, n_layers=1)
    shallow = M.LLaDA(one)
    old1 = []
    shallow.hidden(earlier, capture=old1)
    assert torch.allclose(shallow.hidden(ids, stale=(old1, where)), shallow.hidden(ids), atol=1e-6), \
        "a first layer's K/V depend on more than the column's token and position"

seen = {}
real = train.stale_columns
def spy(model, ids_, earlier_masked, rows, gen):
    full, where = real(model, ids_, earlier_masked, rows, gen)
    seen.update(earlier=earlier_masked.clone(), rows=rows.clone(), where=where.cpu().clone())
    return full, where
train.stale_columns = spy

class Recorder(M.LLaDA):
    def hidden(self, x, key_mask=None, capture=None, stale=None):
        if capture is None:
            self.last_input = x.clone()
        return super().hidden(x, key_mask, capture, stale)

net = Recorder(net.c)
ids = torch.tensor([prompt + resp] * 32)
is_resp = torch.zeros_like(ids, dtype=torch.bool)
is_resp[:, P:] = True
loss, ce, n = train.mdlm_loss(net, ids, is_resp, torch.Generator().manual_seed(5), suffix_prob=0.3, order_prob=0.5,
                              stale_kv_prob=0.75)
loss.backward()
assert torch.isfinite(loss) and all(torch.isfinite(p.grad).all() for p in net.parameters() if p.grad is not None)
rows = seen["rows"]
assert 0 < int(rows.sum()) < 32, f"{int(rows.sum())} of 32 sequences stale: expected some, not all"
hidden_now = net.last_input == C.MASK
assert seen["earlier"].shape[0] == 1, "one earlier state by default"
hidden_before = seen["earlier"][0]
assert bool((hidden_now[rows] <= hidden_before).all()), "the earlier state shows a position the current state hides"
assert bool((hidden_before[:, :P] == False).all()), "the earlier state hid part of the prompt"
where = seen["where"]
assert not bool(where[~rows].any()), "a sequence that is not stale got stale columns"
assert bool((where[rows] <= ~hidden_before).all()), "a stale column is one the earlier state hid"
assert bool(where[rows][:, :P].any()), "no prompt column kept its earlier K/V"

# Several earlier states: nested (each shows what the one before showed, and no more than now), and
# every stale column gets the K/V of the first state that showed it.
net.zero_grad()
loss, ce, n = train.mdlm_loss(net, ids, is_resp, torch.Generator().manual_seed(6), order_prob=1.0,
                              stale_kv_prob=1.0, stale_kv_states=3)
loss.backward()
assert torch.isfinite(loss), loss
states, rows = seen["earlier"], seen["rows"]
assert states.shape[0] == 3 and bool(rows.all()), (states.shape, int(rows.sum()))
hidden_now = net.last_input == C.MASK
for s in range(2):
    assert bool((states[s + 1] <= states[s]).all()), f"state {s + 1} hides a position state {s} showed"
assert bool((hidden_now <= states[2]).all()), "the latest earlier state shows a position hidden now"
assert bool((states[0] != states[2]).any()), "the three states are one"
with torch.no_grad():
    full, where = train.stale_columns(net, ids, states, rows, torch.Generator().manual_seed(1))
    captured = []
    for state in states:
        layers = []
        net.hidden(torch.where(state, torch.full_like(ids, C.MASK), ids), capture=layers)
        captured.append(layers)
first = (~states).float().argmax(0)
checked = 0
for b, pos in where.nonzero().tolist()[::7]:
    s = int(first[b, pos])
    assert bool(~states[s][b, pos]) and (s == 0 or bool(states[s - 1][b, pos])), "not the first state showing it"
    for layer in (0, len(full) - 1):
        assert torch.equal(full[layer][0][b, :, pos], captured[s][layer][0][b, :, pos]), (b, pos, s, layer)
        assert torch.equal(full[layer][1][b, :, pos], captured[s][layer][1][b, :, pos]), (b, pos, s, layer)
    checked += s > 0
assert checked > 0, "no stale column came from a later state"

for extra in (["--model", "mdlm", "--stale-kv", "0.5"], ["--model", "dream", "--decode-order-mask", "0.4", "--stale-kv", "0.5"],
              ["--model", "ar", "--stale-kv", "0.5"],
              ["--model", "mdlm", "--decode-order-mask", "0.4", "--stale-kv-states", "2"],
              ["--model", "mdlm", "--decode-order-mask", "0.4", "--stale-kv", "0.5", "--stale-kv-states", "0"]):
    r = subprocess.run([sys.executable, os.path.join(sys.argv[1], "train.py"), *extra], capture_output=True, text=True)
    assert r.returncode == 2 and "--stale-kv" in r.stderr, (extra, r.returncode, r.stderr[-300:])
print("ok: captured K/V replay exactly, a first layer's never go stale, deeper ones do; only decode-order "
      "sequences get earlier-state columns, shown there; refused where it would do nothing")
'''


if __name__ == "__main__":
    run_training_check(CHECK, "the stale K/V check failed")
