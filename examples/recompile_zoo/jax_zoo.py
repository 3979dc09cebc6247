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
