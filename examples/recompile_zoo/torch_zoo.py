"""torch.compile scenarios of the recompile zoo: each provokes one cause on purpose.

Every scenario is a small training-like loop. It declares what it does (`truth.intend`) before it
runs, prints a progress line per training step on its step stream, and `truth.TraceTap` records
what the runtime compiled in which step. torch is imported only inside `run`, so `zoo.py list` and
`--dry-run` work without it.
"""

import functools

# name -> (function, short description). Filled by @scenario.
SCENARIOS = {}


def scenario(description, group=None, backend="inductor"):
    def wrap(fn):
        SCENARIOS[fn.__name__] = {"fn": fn, "description": description, "group": group,
                                  "backend": backend, "framework": "torch"}
        return fn
    return wrap


def _torch():
    import torch  # noqa: F401  (imported lazily: the zoo lists and dry-runs without torch)
    return torch


def _set_recompile_limit(torch, limit):
    # recompile_limit (2.7+) was called cache_size_limit before.
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, limit)


def _mlp(torch, device, width=32):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(),
                               torch.nn.Linear(width, 1)).to(device)


def _train_loop(truth, torch, steps, step_fn, epochs=None):
    """Runs `step_fn(step)` per step between the progress bookkeeping; returns the losses."""
    per_epoch = steps // epochs if epochs else None
    for step in range(steps):
        epoch = step // per_epoch if epochs else None
        truth.begin_step(step, steps, epoch=epoch, steps_per_epoch=per_epoch)
        loss = step_fn(step)
        value = float(loss.detach().float().cpu()) if hasattr(loss, "detach") else float(loss)
        truth.end_step(step, steps, value, epoch=epoch, steps_per_epoch=per_epoch)


def _regression_loop(truth, torch, device, steps, train_step):
    """Random (x, y) batches of 16 through `train_step(x, y)`, then backward."""
    def step_fn(step):
        loss = train_step(torch.randn(16, 32, device=device), torch.randn(16, 1, device=device))
        loss.backward()
        return loss

    _train_loop(truth, torch, steps, step_fn)


# --- one cause each ---------------------------------------------------------------------------

STEP_COUNTER = 0  # a Python int the compiled step reads: baked into the graph as a constant


@scenario("a global Python int counter read inside the compiled step (constant)")
def constant_counter(truth, device, backend, dry_run):
    steps = 5
    truth.intend(0, "train_step", "first_compile", "first call")
    for s in range(1, steps):
        truth.intend(s, "train_step", "constant",
                     f"STEP_COUNTER {s - 1} -> {s}: the int is specialised into the graph")
    if dry_run:
        return
    torch = _torch()
    model = _mlp(torch, device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    @torch.compile(backend=backend)
    def train_step(x, y):
        warm = 1.0 / (1 + STEP_COUNTER)  # the counter becomes a literal of the graph
        return torch.nn.functional.mse_loss(model(x) * warm, y)

    def step_fn(step):
        global STEP_COUNTER
        STEP_COUNTER = step
        x = torch.randn(16, 32, device=device)
        y = torch.randn(16, 1, device=device)
        loss = train_step(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    _train_loop(truth, torch, steps, step_fn)


@scenario("the sequence length grows each step, without mark_dynamic (shape), in 2 epochs")
def growing_seq_len(truth, device, backend, dry_run):
    steps, epochs = 8, 2
    truth.intend(0, "train_step", "first_compile", "first call, length 16")
    truth.intend(1, "train_step", "shape",
                 "length 16 -> 24: the static dim fails its guard; automatic dynamic makes it "
                 "symbolic, so later lengths reuse the program")
    if dry_run:
        return
    torch = _torch()
    emb = torch.nn.Embedding(100, 32).to(device)
    head = torch.nn.Linear(32, 1).to(device)
    opt = torch.optim.SGD(list(emb.parameters()) + list(head.parameters()), lr=0.01)

    @torch.compile(backend=backend)
    def train_step(tokens):
        h = emb(tokens).mean(dim=1)
        return head(h).pow(2).mean()

    def step_fn(step):
        tokens = torch.randint(0, 100, (4, 16 + 8 * step), device=device)
        loss = train_step(tokens)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    _train_loop(truth, torch, steps, step_fn, epochs=epochs)


@scenario("the input batch arrives in bfloat16 from step 3 on (dtype)")
def dtype_flip(truth, device, backend, dry_run):
    steps = 6
    truth.intend(0, "forward", "first_compile", "first call, float32 input")
    truth.intend(3, "forward", "dtype", "input float32 -> bfloat16")
    if dry_run:
        return
    torch = _torch()
    w = torch.randn(32, 8, device=device)

    @torch.compile(backend=backend)
    def forward(x):
        return (x.float() @ w).relu().mean()

    def step_fn(step):
        dtype = torch.float32 if step < 3 else torch.bfloat16
        return forward(torch.randn(16, 32, device=device).to(dtype))

    _train_loop(truth, torch, steps, step_fn)


@scenario("an optional batch key ('mask') is absent from step 2 on (key_subset)")
def optional_keys(truth, device, backend, dry_run):
    steps = 6
    truth.intend(0, "forward", "first_compile", "first call, batch with 'mask'")
    truth.intend(2, "forward", "key_subset", "batch keys {'x','mask'} -> {'x'}")
    if dry_run:
        return
    torch = _torch()
    w = torch.randn(32, 8, device=device)

    @torch.compile(backend=backend)
    def forward(batch):
        h = batch["x"] @ w
        if "mask" in batch:
            h = h * batch["mask"]
        return h.sum()

    def step_fn(step):
        batch = {"x": torch.randn(16, 32, device=device)}
        if step < 2:
            batch["mask"] = torch.ones(16, 8, device=device)
        return forward(batch)

    _train_loop(truth, torch, steps, step_fn)


@scenario(".item() inside the compiled step: a graph break and its resume function "
          "(sync_fragment)")
def item_sync(truth, device, backend, dry_run):
    steps = 4
    truth.intend(0, "train_step", "first_compile", "first call; the graph ends at .item()")
    truth.intend(0, "torch_dynamo_resume_in_train_step", "sync_fragment",
                 "the rest of train_step after the .item() host sync, compiled as a resume "
                 "function", prefix=True)
    if dry_run:
        return
    torch = _torch()
    model = _mlp(torch, device)

    @torch.compile(backend=backend)
    def train_step(x, y):
        loss = torch.nn.functional.mse_loss(model(x), y)
        _ = loss.detach().norm().item()  # host sync (a debugging habit): splits the graph here
        return loss * 2.0

    _regression_loop(truth, torch, device, steps, train_step)


@scenario(".item() appended to a Python list inside the compiled step: two resume functions, "
          "and both recompile every step")
def item_sync_list_append(truth, device, backend, dry_run):
    steps = 4
    truth.note("The intent below was written after the first device run showed what Dynamo does "
               "with this step (torch 2.11): .item() breaks the graph, list.append breaks it "
               "again, the list's length is guarded in train_step, and the first resume function "
               "is guarded on the bound method norms.append, a new object every call.")
    truth.intend(0, "train_step", "first_compile", "first call; the graph ends at .item()")
    truth.intend(0, "torch_dynamo_resume_in_train_step", "sync_fragment",
                 "resume function after the .item() host sync", prefix=True)
    truth.intend(0, "torch_dynamo_resume_in_train_step", "sync_fragment",
                 "resume function after the list.append graph break (not a host sync)",
                 prefix=True)
    for s in range(1, steps):
        truth.intend(s, "train_step", "key_subset",
                     f"the captured list norms grew to {s} items: its emptiness / length is "
                     "guarded")
        truth.intend(s, "torch_dynamo_resume_in_train_step", "object_identity",
                     "the cache entry was invalidated: the bound method norms.append it was "
                     "guarded on (L['___stack0']) was deallocated", prefix=True)
    if dry_run:
        return
    torch = _torch()
    model = _mlp(torch, device)
    norms = []

    @torch.compile(backend=backend)
    def train_step(x, y):
        loss = torch.nn.functional.mse_loss(model(x), y)
        norms.append(loss.detach().norm().item())  # host sync: splits the graph here
        return loss * 2.0

    _regression_loop(truth, torch, device, steps, train_step)


@scenario("the input starts requiring grad at step 3 (saliency): tensor_meta")
def requires_grad_flip(truth, device, backend, dry_run):
    steps = 5
    truth.intend(0, "forward", "first_compile", "first call, input without requires_grad")
    truth.intend(3, "forward", "tensor_meta", "input requires_grad False -> True")
    if dry_run:
        return
    torch = _torch()
    w = torch.randn(32, 8, device=device)

    @torch.compile(backend=backend)
    def forward(x):
        return (x @ w).tanh().sum()

    def step_fn(step):
        x = torch.randn(16, 32, device=device)
        if step >= 3:
            x.requires_grad_(True)
        loss = forward(x)
        if step >= 3:
            loss.backward()
        return loss

    _train_loop(truth, torch, steps, step_fn)


@scenario("an evaluation step under no_grad, then a step under autocast (global_state)")
def grad_mode_autocast(truth, device, backend, dry_run):
    steps = 6
    truth.intend(0, "forward", "first_compile", "first call, grad mode on")
    truth.intend(2, "forward", "global_state", "grad mode on -> off (evaluation under no_grad)")
    truth.intend(4, "forward", "global_state", "autocast off -> on (bfloat16)")
    if dry_run:
        return
    torch = _torch()
    model = _mlp(torch, device)

    @torch.compile(backend=backend)
    def forward(x):
        return model(x).pow(2).mean()

    def step_fn(step):
        x = torch.randn(16, 32, device=device)
        if step == 2:
            with torch.no_grad():
                return forward(x)
        if step == 4:
            with torch.autocast(device_type=device, dtype=torch.bfloat16):
                return forward(x)
        return forward(x)

    _train_loop(truth, torch, steps, step_fn)


def _relu(x):
    return x.relu()


def _gelu(x):
    return x * 0.5 * (1.0 + (x * 0.7978845608).tanh())


ACTIVATION = _relu  # a global function the compiled step calls; rebound at step 3


@scenario("a global activation function rebound at step 3 (object_identity)")
def rebound_function(truth, device, backend, dry_run):
    steps = 5
    truth.intend(0, "forward", "first_compile", "first call, ACTIVATION = _relu")
    truth.intend(3, "forward", "object_identity", "global ACTIVATION rebound: _relu -> _gelu")
    if dry_run:
        return
    torch = _torch()
    w = torch.randn(32, 8, device=device)

    @torch.compile(backend=backend)
    def forward(x):
        return ACTIVATION(x @ w).sum()

    def step_fn(step):
        global ACTIVATION
        if step == 3:
            ACTIVATION = _gelu
        return forward(torch.randn(16, 32, device=device))

    _train_loop(truth, torch, steps, step_fn)


@scenario("a new nn.Module instance built every step and passed to the compiled function")
def new_module_each_step(truth, device, backend, dry_run):
    steps = 4
    truth.intend(0, "forward", "first_compile", "first call")
    truth.note("Each step builds a new Head(); whether Dynamo recompiles for a new instance "
               "depends on its nn.Module guards (inline_inbuilt_nn_modules): observed_compiles "
               "says what this version did; any recompile here is object_identity.")
    for s in range(1, steps):
        truth.intend(s, "forward", "object_identity", "a new Head instance", if_observed=True)
    if dry_run:
        return
    torch = _torch()

    class Head(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(32, 8)

        def forward(self, x):
            return self.proj(x).relu()

    @torch.compile(backend=backend)
    def forward(head, x):
        return head(x).sum()

    def step_fn(step):
        return forward(Head().to(device), torch.randn(16, 32, device=device))

    _train_loop(truth, torch, steps, step_fn)


@scenario("a weight passed as nn.Parameter, then as a plain tensor from step 2 (type)")
def parameter_vs_tensor(truth, device, backend, dry_run):
    steps = 4
    truth.intend(0, "forward", "first_compile", "first call, w is an nn.Parameter")
    truth.intend(2, "forward", "type", "w: Parameter -> Tensor (w.detach())")
    if dry_run:
        return
    torch = _torch()
    param = torch.nn.Parameter(torch.randn(32, 8, device=device))

    @torch.compile(backend=backend)
    def forward(w, x):
        return (x @ w).sum()

    def step_fn(step):
        # The plain tensor also requires grad: only the type changes, not the tensor's metadata.
        w = param if step < 2 else param.detach().requires_grad_(True)
        return forward(w, torch.randn(16, 32, device=device))

    _train_loop(truth, torch, steps, step_fn)


@scenario("the batch size changes every step with automatic dynamic shapes off and "
          "recompile_limit=4: the limit is hit at step 4")
def recompile_limit(truth, device, backend, dry_run):
    steps, limit = 7, 4
    truth.data["recompile_limit"] = limit
    truth.intend(0, "forward", "first_compile", "first call, batch 8")
    for s in range(1, limit):
        truth.intend(s, "forward", "shape", f"batch {8 + s - 1} -> {8 + s}")
    truth.data["intended_limit_hit"] = {"step": limit, "function": "forward", "limit": limit,
                                        "then": "the frame runs eagerly"}
    if dry_run:
        return
    torch = _torch()
    torch._dynamo.config.automatic_dynamic_shapes = False
    _set_recompile_limit(torch, limit)
    w = torch.randn(32, 8, device=device)

    @torch.compile(backend=backend)
    def forward(x):
        return (x @ w).relu().mean()

    def step_fn(step):
        return forward(torch.randn(8 + step, 32, device=device))

    _train_loop(truth, torch, steps, step_fn)


@scenario("two experiments in one process with torch._dynamo.reset() between them: compile "
          "ids restart at 0/0 for another function")
def reset_between_experiments(truth, device, backend, dry_run):
    steps = 6
    truth.intend(0, "score_a", "first_compile", "experiment A, first call")
    truth.intend(1, "score_a", "shape", "experiment A: batch 16 -> 24")
    truth.intend(3, "score_b", "first_compile",
                 "experiment B after torch._dynamo.reset(): frame ids restart, so its compile id "
                 "0/0 repeats experiment A's")
    truth.intend(4, "score_b", "dtype", "experiment B: input float32 -> float16")
    if dry_run:
        return
    torch = _torch()
    w = torch.randn(32, 8, device=device)

    @torch.compile(backend=backend)
    def score_a(x):
        return (x @ w).sigmoid().mean()

    @torch.compile(backend=backend)
    def score_b(x):
        return (x.float() @ w).tanh().mean()

    def step_fn(step):
        if step < 3:
            return score_a(torch.randn(16 if step == 0 else 24, 32, device=device))
        if step == 3:
            torch._dynamo.reset()
        dtype = torch.float32 if step == 3 else torch.float16
        return score_b(torch.randn(16, 32, device=device).to(dtype))

    _train_loop(truth, torch, steps, step_fn)


@scenario("three compiled functions and several host syncs per step (loss, grad norm, EMA), "
          "progress lines on stdout with timestamps; one shape change at step 4")
def multi_sync_steps(truth, device, backend, dry_run):
    steps = 7
    for fn in ("forward_backward", "clip_and_step", "ema_update"):
        truth.intend(0, fn, "first_compile", "first call")
    truth.intend(4, "forward_backward", "shape", "batch 16 -> 12 (a short last batch)")
    truth.data["syncs_per_step"] = 3
    if dry_run:
        return
    torch = _torch()
    model = _mlp(torch, device)
    ema = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    @torch.compile(backend=backend)
    def forward_backward(x, y):
        return torch.nn.functional.mse_loss(model(x), y)

    @torch.compile(backend=backend)
    def clip_and_step():
        total = torch.stack([p.grad.norm() for p in model.parameters()]).norm()
        for p in model.parameters():
            p.grad.mul_(torch.clamp(1.0 / (total + 1e-6), max=1.0))
        return total

    @torch.compile(backend=backend)
    def ema_update():
        with torch.no_grad():
            for e, p in zip(ema, model.parameters()):
                e.mul_(0.99).add_(p.detach(), alpha=0.01)

    def step_fn(step):
        batch = 12 if step == 4 else 16
        x = torch.randn(batch, 32, device=device)
        y = torch.randn(batch, 1, device=device)
        loss = forward_backward(x, y)
        loss.backward()
        _ = float(loss)                  # sync 1: the loss for logging
        norm = clip_and_step()
        _ = float(norm)                  # sync 2: the grad norm
        opt.step()
        opt.zero_grad()
        ema_update()
        torch.cuda.synchronize() if device == "cuda" else None  # sync 3: the EMA
        return loss

    _train_loop(truth, torch, steps, step_fn)


# --- warm restart: one lane, three runs sharing one Inductor cache directory -----------------

def _cache_train(truth, device, backend, dry_run, change_config):
    steps = 3
    truth.intend(0, "train_step", "first_compile", "first call in this process")
    if dry_run:
        return
    torch = _torch()
    if change_config:
        # Any Inductor config change is part of the FX graph cache key: every entry the cold run
        # wrote is unusable for this run.
        torch._inductor.config.max_fusion_size = 32
    model = _mlp(torch, device, width=64)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    @torch.compile(backend=backend)
    def train_step(x, y):
        return torch.nn.functional.mse_loss(model(x), y)

    def step_fn(step):
        loss = train_step(torch.randn(32, 64, device=device), torch.randn(32, 1, device=device))
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    _train_loop(truth, torch, steps, step_fn)


@scenario("cold run: empty FX graph / AOTAutograd cache", group="inductor_cache")
def cache_cold(truth, device, backend, dry_run):
    truth.data["restart"] = {"lane": "inductor_cache", "role": "cold"}
    _cache_train(truth, device, backend, dry_run, change_config=False)


@scenario("warm run: the same script on the cold run's cache: proven", group="inductor_cache")
def cache_warm(truth, device, backend, dry_run):
    truth.data["restart"] = {"lane": "inductor_cache", "role": "warm", "expected": "proven"}
    _cache_train(truth, device, backend, dry_run, change_config=False)


@scenario("broken warm run: an Inductor config changed, so the cache cannot be used: not proven",
          group="inductor_cache")
def cache_broken(truth, device, backend, dry_run):
    truth.data["restart"] = {"lane": "inductor_cache", "role": "warm", "expected": "not_proven"}
    _cache_train(truth, device, backend, dry_run, change_config=True)
