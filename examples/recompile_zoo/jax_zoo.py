"""jax.jit scenarios of the recompile zoo. jax is imported only inside a run, so the zoo lists
and dry-runs without it. JAX_LOG_COMPILES and JAX_EXPLAIN_CACHE_MISSES (set by the runner from
`rcf capture --print-env`) make JAX log every compile and why its cache missed, to stderr."""

SCENARIOS = {}


def scenario(description, group=None):
    def wrap(fn):
        SCENARIOS[fn.__name__] = {"fn": fn, "description": description, "group": group,
                                  "backend": "xla", "framework": "jax"}
        return fn
    return wrap


def _jax():
    import jax
    return jax


def _key(jax, seed):
    make = getattr(jax.random, "key", None) or jax.random.PRNGKey
    return make(seed)


def _config(truth, jax, name, value):
    try:
        jax.config.update(name, value)
    except Exception as e:  # an option this JAX does not have: say so in the truth
        truth.note(f"jax.config.update({name!r}) failed: {type(e).__name__}: {e}")


def _loop(truth, steps, step_fn):
    for step in range(steps):
        truth.begin_step(step, steps)
        loss = step_fn(step)
        truth.end_step(step, steps, float(loss))


@scenario("jax.jit with a static argument (the number of layers to apply) that changes at "
          "steps 2 and 4 (constant)")
def jax_static_arg(truth, device, backend, dry_run):
    steps = 6
    truth.intend(0, "apply_layers", "first_compile", "first call, depth 2")
    truth.intend(2, "apply_layers", "constant", "static argument depth 2 -> 3")
    truth.intend(4, "apply_layers", "constant", "static argument depth 3 -> 4")
    if dry_run:
        return
    jax = _jax()
    import functools
    jnp = jax.numpy

    @functools.partial(jax.jit, static_argnums=1)
    def apply_layers(x, depth):
        for _ in range(depth):
            x = jnp.tanh(x @ jnp.ones((32, 32), x.dtype) * 0.01)
        return jnp.mean(x ** 2)

    key = _key(jax, 0)

    def step_fn(step):
        depth = 2 if step < 2 else (3 if step < 4 else 4)
        return apply_layers(jax.random.normal(jax.random.fold_in(key, step), (16, 32)), depth)

    _loop(truth, steps, step_fn)


@scenario("jax.jit on a batch whose length grows at steps 1 and 3 (shape)")
def jax_shape_change(truth, device, backend, dry_run):
    steps = 5
    truth.intend(0, "loss_fn", "first_compile", "first call, length 8")
    truth.intend(1, "loss_fn", "shape", "length 8 -> 16")
    truth.intend(3, "loss_fn", "shape", "length 16 -> 32")
    if dry_run:
        return
    jax = _jax()
    jnp = jax.numpy

    @jax.jit
    def loss_fn(w, x):
        return jnp.mean((x @ w) ** 2)

    w = jnp.ones((32, 4)) * 0.1
    key = _key(jax, 1)

    def step_fn(step):
        length = 8 if step < 1 else (16 if step < 3 else 32)
        return loss_fn(w, jax.random.normal(jax.random.fold_in(key, step), (length, 32)))

    _loop(truth, steps, step_fn)


def _cache_train(truth, dry_run):
    steps = 3
    truth.intend(0, "train_step", "first_compile", "first call in this process")
    if dry_run:
        return
    jax = _jax()
    jnp = jax.numpy
    # The persistent compilation cache: every program is written (no minimum compile time or
    # entry size), in the directory the runner gives every run of this lane.
    _config(truth, jax, "jax_persistent_cache_min_compile_time_secs", 0)
    _config(truth, jax, "jax_persistent_cache_min_entry_size_bytes", -1)

    def loss_fn(w, x, y):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

    @jax.jit
    def train_step(w, x, y):
        loss, g = jax.value_and_grad(loss_fn)(w, x, y)
        return w - 0.01 * g, loss

    w = jnp.ones((32, 1)) * 0.1
    key = _key(jax, 2)

    def step_fn(step):
        nonlocal w
        k = jax.random.fold_in(key, step)
        x = jax.random.normal(k, (16, 32))
        w, loss = train_step(w, x, jnp.zeros((16, 1)))
        return loss

    _loop(truth, steps, step_fn)


@scenario("cold run: empty JAX persistent compilation cache", group="jax_cache")
def jax_cache_cold(truth, device, backend, dry_run):
    truth.data["restart"] = {"lane": "jax_cache", "role": "cold"}
    _cache_train(truth, dry_run)


@scenario("warm run: the same script on the cold run's persistent cache: proven",
          group="jax_cache")
def jax_cache_warm(truth, device, backend, dry_run):
    truth.data["restart"] = {"lane": "jax_cache", "role": "warm", "expected": "proven"}
    _cache_train(truth, dry_run)


# --- with XLA's own dumps (capture sets XLA_FLAGS=--xla_dump_to=.../logs/xla_dump) -------------
# The same causes again, chosen so that the HLO modules XLA writes are what decides them: rcf
# diffs the module of each recompile with the earlier one of its function (docs/hlo_text.md).

@scenario("jax.jit on a batch whose length grows at steps 2 and 4, with HLO dumps (shape: "
          "parameter 1, dimension 0)")
def jax_hlo_shape(truth, device, backend, dry_run):
    steps = 5
    truth.intend(0, "masked_loss", "first_compile", "first call, length 8")
    truth.intend(1, "masked_loss", "shape", "x: length 8 -> 16 (parameter 1, dimension 0)")
    truth.intend(3, "masked_loss", "shape", "x: length 16 -> 32")
    if dry_run:
        return
    jax = _jax()
    jnp = jax.numpy

    @jax.jit
    def masked_loss(w, x):
        h = jnp.tanh(x @ w)
        return jnp.mean(h ** 2) + 0.1 * jnp.mean(jnp.abs(w))

    w = jnp.ones((32, 4)) * 0.1
    key = _key(jax, 11)

    def step_fn(step):
        length = 8 if step < 1 else (16 if step < 3 else 32)
        return masked_loss(w, jax.random.normal(jax.random.fold_in(key, step), (length, 32)))

    _loop(truth, steps, step_fn)


@scenario("a Python float closed over by a jitted function, the function made again when the "
          "value changes at step 3, with HLO dumps (constant: the literal 0.5 -> 0.25)")
def jax_hlo_constant(truth, device, backend, dry_run):
    steps = 5
    truth.intend(0, "scaled_loss", "first_compile", "first call, scale 0.5")
    truth.intend(2, "scaled_loss", "constant", "closed-over scale 0.5 -> 0.25: a new literal")
    if dry_run:
        return
    jax = _jax()
    jnp = jax.numpy

    def make_loss(scale):
        # The way a schedule is often written: the value is baked into the traced program.
        @jax.jit
        def scaled_loss(w, x):
            return jnp.mean(jnp.tanh(x @ w) ** 2) * scale
        return scaled_loss

    w = jnp.ones((32, 4)) * 0.1
    key = _key(jax, 12)
    current = {"scale": None, "fn": None}

    def step_fn(step):
        scale = 0.5 if step < 2 else 0.25
        if scale != current["scale"]:
            current["scale"], current["fn"] = scale, make_loss(scale)
        return current["fn"](w, jax.random.normal(jax.random.fold_in(key, step), (16, 32)))

    _loop(truth, steps, step_fn)


@scenario("jax.jit with an optional mask argument, passed at steps 1-2 and None from step 3, "
          "with HLO dumps (key_subset: one parameter fewer)")
def jax_hlo_optional(truth, device, backend, dry_run):
    steps = 5
    truth.intend(0, "optional_loss", "first_compile", "first call, with mask")
    truth.intend(2, "optional_loss", "key_subset", "mask None from step 3: parameter removed")
    if dry_run:
        return
    jax = _jax()
    jnp = jax.numpy

    @jax.jit
    def optional_loss(w, x, mask=None):
        err = jnp.tanh(x @ w) ** 2
        if mask is not None:
            err = err * mask[:, None]
        return jnp.mean(err)

    w = jnp.ones((32, 4)) * 0.1
    key = _key(jax, 13)
    mask = jnp.ones((16,))

    def step_fn(step):
        x = jax.random.normal(jax.random.fold_in(key, step), (16, 32))
        return optional_loss(w, x, mask if step < 2 else None)

    _loop(truth, steps, step_fn)


@scenario("a host read of the loss (float(loss)) between two jitted functions decides whether "
          "a third, clip_grads, runs: it first compiles at step 3; HLO dumps, device-to-host "
          "transfers logged (JAX does not split a program at a host sync: no recompile)")
def jax_hlo_host_sync(truth, device, backend, dry_run):
    steps = 5
    truth.intend(0, "loss_and_grads", "first_compile", "first call")
    truth.intend(0, "apply_update", "first_compile", "first call")
    truth.intend(2, "clip_grads", "first_compile",
                 "first taken at step 3, after the host read of the loss says so")
    if dry_run:
        return
    jax = _jax()
    jnp = jax.numpy
    # Log every device-to-host transfer (the host read that decides the branch).
    _config(truth, jax, "jax_transfer_guard_device_to_host", "log")

    def loss_fn(w, x):
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    @jax.jit
    def loss_and_grads(w, x):
        return jax.value_and_grad(loss_fn)(w, x)

    @jax.jit
    def clip_grads(g):
        return jnp.clip(g, -0.01, 0.01)

    @jax.jit
    def apply_update(w, g):
        return w - 0.1 * g

    key = _key(jax, 14)
    state = {"w": jnp.ones((32, 4)) * 0.1}

    def step_fn(step):
        x = jax.random.normal(jax.random.fold_in(key, step), (16, 32))
        loss, g = loss_and_grads(state["w"], x)
        threshold = 1e9 if step < 2 else 0.0  # from step 3 every loss is over it
        if float(loss) > threshold:  # the host sync
            g = clip_grads(g)
        state["w"] = apply_update(state["w"], g)
        return loss

    _loop(truth, steps, step_fn)


@scenario("cold run with HLO dumps: empty JAX persistent compilation cache",
          group="jax_hlo_cache")
def jax_hlo_cache_cold(truth, device, backend, dry_run):
    truth.data["restart"] = {"lane": "jax_hlo_cache", "role": "cold"}
    _cache_train(truth, dry_run)


@scenario("warm run with HLO dumps: the same script on the cold run's persistent cache: proven",
          group="jax_hlo_cache")
def jax_hlo_cache_warm(truth, device, backend, dry_run):
    truth.data["restart"] = {"lane": "jax_hlo_cache", "role": "warm", "expected": "proven"}
    _cache_train(truth, dry_run)
