"""stepcast: predict the performance of distributed deep-learning training.

A thin ctypes binding of the stepcast C library (libstepcast.so). Every
function returns what the command prints with ``--format json``, parsed by
Python's json module: the C library writes the document, so the module and
the CLI agree to the last digit. Errors raise :class:`Error` with the
library's message (the one the CLI prints after ``stepcast COMMAND:``).

    import stepcast
    r = stepcast.predict({"model": "llama3-70b", "cluster": {"gpu": "h100-sxm5-80gb",
                          "gpus": 512}, "plan": {"tp": 8, "pp": 4, "global_batch": 1024}})
    r["step_s"], r["mfu"], r["time_s"]["pipeline_bubble"]

    best = stepcast.search("examples/llama3-70b-512-h100.json", top=5, tp=8, zero=[1, 3],
                           dtypes=["bf16", "fp8"], headroom="10%")   # as --tp --zero ...
    best["plans"][0]["plan"], best["plans"][0]["searched"]

    ev = stepcast.predict("scenario.json", engine="event", trace="step.json")  # --engine, --trace
    plans = stepcast.recsys_plan("dlrm.json", headroom=4, overrides={"cluster.gpus": 16})

    job = stepcast.trace(["rank0.json", "rank1.json"], dp_scale=2)["jobs"][0]  # as --dp-scale
    job["replay"]["predicted_step_s"], job["whatif"]["result"]["predicted_step_s"]

    rows = stepcast.validate()          # every shipped measurement set
    import pandas; df = pandas.DataFrame(rows)

The library is looked up in $STEPCAST_LIB (a path), the build tree of the
source this module sits in (build/libstepcast.so), then the system's
library path (an installed libstepcast.so.0.1). See docs/python.md.
"""
import ctypes
import ctypes.util
import glob
import json
import os
import warnings

__all__ = ["Error", "TraceWarning", "predict", "search", "Searcher", "validate", "validate_row",
           "collective", "dp", "recsys_predict", "recsys_plan", "recsys_row", "trace", "predict_json",
           "search_json", "validate_json", "validate_row_json", "collective_json", "dp_json",
           "recsys_predict_json", "recsys_plan_json", "recsys_row_json", "trace_json",
           "presets", "presets_json", "data_dir", "version"]

_SOVERSION = "0.1"
_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCE = os.path.dirname(os.path.dirname(_HERE))  # python/stepcast -> source root


class Error(Exception):
    """A stepcast error: ``code`` is the library's (2 bad input, 3 I/O,
    4 out of memory, 5 cannot model), ``str(e)`` its message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class TraceWarning(UserWarning):
    """A warning of trace()'s load or replay (some ranks of a larger job
    given, events of unknown category skipped, overlapping operations on a
    stream, ...): each line of the warnings `stepcast trace` prints on
    standard error, issued with :func:`warnings.warn`, so that
    ``warnings.catch_warnings`` records them and ``-W error::stepcast.TraceWarning``
    makes them errors."""


class _Err(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 768)]


class _SearchOpts(ctypes.Structure):
    # include/stepcast.h sc_search_opts, field for field
    _fields_ = [("max_tp", ctypes.c_int), ("max_pp", ctypes.c_int),
                ("max_micro_batch", ctypes.c_int), ("max_vpp", ctypes.c_int),
                ("require_fit", ctypes.c_int), ("threads", ctypes.c_int),
                ("max_plans", ctypes.c_long), ("max_seconds", ctypes.c_double),
                ("rerank", ctypes.c_int),
                ("progress", ctypes.c_void_p), ("progress_ctx", ctypes.c_void_p),
                ("tp", ctypes.c_int), ("pp", ctypes.c_int), ("dp", ctypes.c_int),
                ("cp", ctypes.c_int), ("ep", ctypes.c_int),
                ("zero_stages", ctypes.c_uint), ("dtypes", ctypes.c_uint),
                ("headroom_bytes", ctypes.c_double), ("headroom_frac", ctypes.c_double),
                ("micro_batch", ctypes.c_int), ("vpp", ctypes.c_int),
                ("recompute", ctypes.c_uint)]


class _PredictOpts(ctypes.Structure):
    # include/stepcast.h sc_predict_json_opts, field for field
    _fields_ = [("ops", ctypes.c_int), ("train_tokens", ctypes.c_double),
                ("event", ctypes.c_int), ("trace", ctypes.c_char_p), ("html", ctypes.c_char_p)]


class _ValidateOpts(ctypes.Structure):
    # include/stepcast.h sc_validate_json_opts, field for field
    _fields_ = [("event", ctypes.c_int), ("timings", ctypes.c_int), ("html", ctypes.c_char_p)]


class _SweepOpts(ctypes.Structure):
    _fields_ = [("op", ctypes.c_int), ("ranks", ctypes.c_int), ("ranks_per_node", ctypes.c_int),
                ("arch", ctypes.c_int), ("nvlink_GBps", ctypes.c_double),
                ("nic_Gbps", ctypes.c_double), ("min_bytes", ctypes.c_double),
                ("max_bytes", ctypes.c_double), ("factor", ctypes.c_double),
                ("topo", ctypes.c_char * 256), ("algo", ctypes.c_char * 32),
                ("gpus_per_thread", ctypes.c_int), ("fabric", ctypes.c_int),
                ("pcie", ctypes.c_int), ("host_cpu", ctypes.c_int)]


class _TraceWhatif(ctypes.Structure):
    # include/stepcast.h sc_trace_whatif, field for field
    _fields_ = [("dp_scale", ctypes.c_double), ("gpu", ctypes.c_char_p),
                ("comm_model", ctypes.c_int), ("overlap", ctypes.c_int),
                ("nvlink_bw", ctypes.c_double), ("nic_bw", ctypes.c_double),
                ("ranks_per_node", ctypes.c_int)]


class _RsPlanOpts(ctypes.Structure):
    # include/stepcast_recsys.h sc_rs_plan_opts, field for field
    _fields_ = [("top", ctypes.c_int), ("exhaustive_max", ctypes.c_int),
                ("local_iters", ctypes.c_int), ("max_seconds", ctypes.c_double),
                ("max_evals", ctypes.c_long), ("progress", ctypes.c_void_p),
                ("progress_ctx", ctypes.c_void_p), ("headroom_bytes", ctypes.c_double),
                ("headroom_frac", ctypes.c_double)]


def _find_library():
    env = os.environ.get("STEPCAST_LIB")
    if env:
        return env
    # build/ first: glob order puts build-asan/ before it, and a sanitized
    # library cannot be loaded into a Python that was not started with ASan
    builds = sorted(glob.glob(os.path.join(_SOURCE, "build*", "libstepcast.so")),
                    key=lambda p: (os.path.basename(os.path.dirname(p)) != "build", p))
    if builds:
        return builds[0]
    found = ctypes.util.find_library("stepcast")
    return found or "libstepcast.so." + _SOVERSION


def _load():
    path = _find_library()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"stepcast: cannot load the C library {path!r} ({e}); build it "
                          "(scripts/build.sh) or set STEPCAST_LIB") from None
    out = ctypes.POINTER(ctypes.POINTER(ctypes.c_char))
    strs = ctypes.POINTER(ctypes.c_char_p)
    lib.sc_predict_json_ex.argtypes = [ctypes.c_char_p, ctypes.c_char_p, strs, ctypes.c_size_t,
                                       ctypes.POINTER(_PredictOpts), out, ctypes.POINTER(_Err)]
    lib.sc_search_json_ex.argtypes = [ctypes.c_char_p, ctypes.c_char_p, strs, ctypes.c_size_t,
                                      ctypes.POINTER(_SearchOpts), ctypes.c_int, ctypes.c_char_p,
                                      out, ctypes.POINTER(_Err)]
    lib.sc_searcher_search_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                            strs, ctypes.c_size_t, ctypes.POINTER(_SearchOpts),
                                            ctypes.c_int, ctypes.c_char_p, out,
                                            ctypes.POINTER(_Err)]
    lib.sc_searcher_open.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.POINTER(_Err)]
    lib.sc_searcher_close.argtypes = [ctypes.c_void_p]
    lib.sc_searcher_close.restype = None
    lib.sc_validate_json_ex.argtypes = [strs, strs, ctypes.c_size_t, ctypes.POINTER(_ValidateOpts),
                                        out, ctypes.POINTER(_Err)]
    lib.sc_validate_row_json.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                         ctypes.c_int, out, ctypes.POINTER(_Err)]
    lib.sc_collective_json_ex.argtypes = [ctypes.POINTER(_SweepOpts), ctypes.c_char_p, out,
                                          ctypes.POINTER(_Err)]
    lib.sc_dp_json.argtypes = [ctypes.c_char_p, ctypes.c_char_p, strs, ctypes.c_size_t, out,
                               ctypes.POINTER(_Err)]
    lib.sc_presets_json.argtypes = [out, ctypes.POINTER(_Err)]
    lib.sc_coll_sweep_default.argtypes = [ctypes.POINTER(_SweepOpts)]
    lib.sc_search_opts_default.argtypes = [ctypes.POINTER(_SearchOpts)]
    lib.sc_search_opts_default.restype = None
    lib.sc_search_opts_set.argtypes = [ctypes.POINTER(_SearchOpts), ctypes.c_char_p,
                                       ctypes.c_char_p, ctypes.POINTER(_Err)]
    lib.sc_coll_op_from_name.argtypes = [ctypes.c_char_p]
    lib.sc_fabric_from_name.argtypes = [ctypes.c_char_p]
    lib.sc_host_cpu_from_name.argtypes = [ctypes.c_char_p]
    lib.sc_free.argtypes = [ctypes.c_void_p]
    lib.sc_rs_predict_json_ex.argtypes = [ctypes.c_char_p, strs, ctypes.c_size_t,
                                          ctypes.c_char_p, ctypes.c_char_p, out,
                                          ctypes.POINTER(_Err)]
    lib.sc_rs_plan_json_ex.argtypes = [ctypes.c_char_p, strs, ctypes.c_size_t,
                                       ctypes.POINTER(_RsPlanOpts), ctypes.c_char_p, out,
                                       ctypes.POINTER(_Err)]
    lib.sc_rs_row_json.argtypes = [ctypes.c_char_p, ctypes.c_char_p, out, ctypes.POINTER(_Err)]
    lib.sc_rs_plan_opts_default.argtypes = [ctypes.POINTER(_RsPlanOpts)]
    lib.sc_rs_plan_opts_default.restype = None
    lib.sc_trace_json_ex.argtypes = [strs, ctypes.c_int, ctypes.POINTER(_TraceWhatif),
                                     ctypes.c_char_p, ctypes.c_char_p, out, out,
                                     ctypes.POINTER(_Err)]
    lib.sc_trace_whatif_default.argtypes = [ctypes.POINTER(_TraceWhatif)]
    lib.sc_trace_whatif_default.restype = None
    for f in ("sc_trace_json_ex", "sc_predict_json_ex", "sc_search_json_ex",
              "sc_searcher_search_json", "sc_searcher_open",
              "sc_validate_json_ex", "sc_validate_row_json", "sc_collective_json_ex", "sc_dp_json",
              "sc_coll_op_from_name", "sc_rs_predict_json_ex", "sc_rs_plan_json_ex",
              "sc_rs_row_json", "sc_search_opts_set", "sc_presets_json"):
        getattr(lib, f).restype = ctypes.c_int
    lib.sc_free.restype = None
    return lib, path


_lib, _lib_path = _load()


def _call(fn, *args):
    """Call an sc_*_json entry; the JSON text it returns, or raise Error."""
    buf = ctypes.POINTER(ctypes.c_char)()
    err = _Err()
    rc = fn(*args, ctypes.byref(buf), ctypes.byref(err))
    if rc != 0:
        raise Error(rc, err.msg.decode("utf-8", "replace"))
    try:
        return ctypes.string_at(buf).decode("utf-8")
    finally:
        _lib.sc_free(buf)


def _strings(items):
    enc = [s.encode("utf-8") for s in items]
    return (ctypes.c_char_p * max(len(enc), 1))(*enc), len(enc)


def _overrides(overrides):
    """{"plan.tp": 8} or ["plan.tp=8"] -> the KEY=VALUE strings of --set."""
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        return [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in overrides.items()]
    return list(overrides)


def _scenario(scenario):
    """(path, json) of a scenario given as a dict, a file path or None."""
    if scenario is None:
        return None, None
    if isinstance(scenario, (str, os.PathLike)):
        return os.fsencode(scenario), None
    return None, json.dumps(scenario).encode("utf-8")


def _file(path):
    """A file name for the library (None: none)."""
    return os.fsencode(path) if path is not None else None


_ENGINES = ("closed", "event")


def _event(engine):
    """1 for engine "event", 0 for "closed" (the command's --engine); else Error 2."""
    if engine not in _ENGINES:
        raise Error(2, f"engine: expected 'closed' or 'event', got {engine!r}")
    return int(engine == "event")


def predict_json(scenario=None, overrides=None, ops=False, train_tokens=None, *,
                 engine="closed", trace=None, html=None):
    """The text of ``stepcast predict --format json`` (the options as predict())."""
    o = _PredictOpts(ops=int(bool(ops)), train_tokens=float(train_tokens or 0),
                     event=_event(engine),
                     trace=_file(trace), html=_file(html))
    path, text = _scenario(scenario)
    ov, n = _strings(_overrides(overrides))
    return _call(_lib.sc_predict_json_ex, path, text, ov, n, ctypes.byref(o))


def predict(scenario=None, overrides=None, ops=False, train_tokens=None, *, engine="closed",
            trace=None, html=None):
    """Predict one training step: the fields of ``stepcast predict --format
    json`` (step_s, tokens_per_s, mfu, time_s, memory_bytes, fits, plan,
    and layer_ops and op_kinds with ops=True). fits_confidence is "marginal" where the
    memory total is within the memory model's error band of the GPU's
    memory (docs/accuracy.md), either side: fits may then be wrong;
    "unmeasured" on CNNs, BERT and JSON graphs, which the band was not
    measured on. scenario: a dict in the scenario JSON
    format (docs/input.md), a file path, or None for the built-in default;
    overrides: {"plan.tp": 8} or ["plan.tp=8"], as --set. As the
    command's options: train_tokens (--train-tokens, 1..1e18: train_days);
    engine="event" (--engine event: the event engine's document, with
    engine, closed_form_step_s and critical_path; docs/event.md); trace
    and html name files for the step's Chrome trace (--trace) and the HTML
    report (--html, closed form), written after the prediction. A bad
    value or combination raises Error (code 2) with the library's message;
    a file that cannot be written, code 3."""
    return json.loads(predict_json(scenario, overrides, ops, train_tokens, engine=engine,
                                   trace=trace, html=html))


def dp_json(scenario=None, overrides=None):
    """The text of ``stepcast dp --format json``."""
    path, text = _scenario(scenario)
    ov, n = _strings(_overrides(overrides))
    return _call(_lib.sc_dp_json, path, text, ov, n)


def dp(scenario=None, overrides=None):
    """Every data-parallel scheme that applies to the job, fastest first:
    the fields of ``stepcast dp --format json`` ({"schemes": [{"scheme",
    "step_s", "samples_per_s", "efficiency", "exposed_s", ...}]})."""
    return json.loads(dp_json(scenario, overrides))


# The keyword arguments of search() the library parses (sc_search_opts_set,
# docs/search.md): the space's bounds, how it runs and the constraints.
_SEARCH_OPTS = ("max_tp", "max_pp", "max_micro_batch", "max_vpp", "all", "rerank", "threads",
                "max_plans", "max_seconds", "tp", "pp", "dp", "cp", "ep", "micro_batch", "vpp",
                "recompute", "zero", "dtypes", "headroom")
# ... of which these took 0 for "the default" before they were parsed.
_ZERO_IS_DEFAULT = ("max_tp", "max_pp", "max_micro_batch", "max_vpp")


def _opt_text(value):
    """A keyword argument as the text of its command-line option."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def _search_opts(options):
    """An sc_search_opts from the library's defaults and options (a dict
    of _SEARCH_OPTS; None leaves the default); Error with the library's
    message on a bad value."""
    opts = _SearchOpts()
    _lib.sc_search_opts_default(ctypes.byref(opts))
    for key in _SEARCH_OPTS:
        value = options.get(key)
        if value is None or (key in _ZERO_IS_DEFAULT and value == 0 and
                             not isinstance(value, bool)):
            continue
        err = _Err()
        rc = _lib.sc_search_opts_set(ctypes.byref(opts), key.encode("utf-8"),
                                     _opt_text(value).encode("utf-8"), ctypes.byref(err))
        if rc != 0:
            raise Error(rc, err.msg.decode("utf-8", "replace"))
    return opts


def search_json(scenario=None, overrides=None, top=10, max_tp=None, max_pp=None,
                max_micro_batch=None, max_vpp=None, all=False, *, rerank=True, tp=None,
                pp=None, dp=None, cp=None, ep=None, micro_batch=None, vpp=None, recompute=None,
                zero=None, dtypes=None, headroom=None, threads=None, max_plans=None,
                max_seconds=None, html=None, searcher=None):
    """The text of ``stepcast search --format json`` (the options as search();
    searcher, a Searcher whose threads run it)."""
    opts = _search_opts(dict(max_tp=max_tp, max_pp=max_pp, max_micro_batch=max_micro_batch,
                             max_vpp=max_vpp, all=all, rerank=rerank, tp=tp, pp=pp, dp=dp,
                             cp=cp, ep=ep, micro_batch=micro_batch, vpp=vpp,
                             recompute=recompute, zero=zero, dtypes=dtypes, headroom=headroom,
                             threads=threads, max_plans=max_plans, max_seconds=max_seconds))
    path, text = _scenario(scenario)
    ov, n = _strings(_overrides(overrides))
    if searcher is None:
        return _call(_lib.sc_search_json_ex, path, text, ov, n, ctypes.byref(opts), int(top),
                     _file(html))
    return _call(_lib.sc_searcher_search_json, searcher._handle(), path, text, ov, n,
                 ctypes.byref(opts), int(top), _file(html))


def search(scenario=None, overrides=None, top=10, max_tp=None, max_pp=None,
           max_micro_batch=None, max_vpp=None, all=False, *, rerank=True, tp=None, pp=None,
           dp=None, cp=None, ep=None, micro_batch=None, vpp=None, recompute=None, zero=None,
           dtypes=None, headroom=None, threads=None, max_plans=None, max_seconds=None,
           html=None, searcher=None):
    """The fastest plans of the scenario's model, cluster and batch, as
    ``stepcast search --format json``: dtypes, space, tried, valid, fit, pruned,
    stopped, ranked_by, plans [{rank, pareto_front, plan, step_s, ...,
    searched}] (docs/output.md). Options as the command's (None: its
    default): bounds max_tp, max_pp, max_micro_batch, max_vpp (--max-mb);
    all=True also keeps plans that do not fit; fixed degrees tp, pp, dp,
    cp, ep; a fixed micro_batch (--mb) and vpp (1: 1F1B only); recompute,
    the recomputation kinds searched (none, selective, full, partial:
    "full" or ["full", "partial"]); zero, the ZeRO stages searched ([1, 3]
    or "1,3"); dtypes, the GEMM types searched (["bf16", "fp8"] or
    "bf16,fp8"); headroom, memory kept free (4 GiB, 0.1 of it, or "10%");
    rerank=False keeps the closed form's order (by default its top plans
    are re-run by the event engine); threads; budgets max_plans and max_seconds; html, a file for the plan
    space as an HTML page (--html: the fastest 1,000 plans, the first
    marked); searcher, a Searcher to run it on (its threads kept between
    searches: Searcher.search). A bad value raises Error (code 2) with the
    library's message, which names the option."""
    return json.loads(search_json(scenario, overrides, top, max_tp, max_pp, max_micro_batch,
                                  max_vpp, all, rerank=rerank, tp=tp, pp=pp, dp=dp, cp=cp,
                                  ep=ep, micro_batch=micro_batch, vpp=vpp, recompute=recompute,
                                  zero=zero, dtypes=dtypes, headroom=headroom,
                                  threads=threads, max_plans=max_plans,
                                  max_seconds=max_seconds, html=html, searcher=searcher))


class Searcher:
    """Threads kept between searches (the library's sc_searcher): a program
    that searches many times keeps one, so that each search wakes parked
    threads and writes memory already touched instead of creating threads
    (docs/search.md, "Threads: a pool kept between searches"). threads:
    the most a search on it runs on (None or 0: every core). The results
    are search()'s. One search at a time per Searcher (a search from
    another Python thread while one runs creates its own helpers). Close
    it (close(), or a with block); a closed Searcher raises Error."""

    def __init__(self, threads=None):
        err = _Err()
        h = ctypes.c_void_p()
        rc = _lib.sc_searcher_open(int(threads or 0), ctypes.byref(h), ctypes.byref(err))
        if rc != 0:
            raise Error(rc, err.msg.decode("utf-8", "replace"))
        self._h = h

    def _handle(self):
        if self._h is None:
            raise Error(2, "Searcher: closed")
        return self._h

    def search(self, *args, **kwargs):
        """search(...) on this searcher's threads (search()'s arguments)."""
        return search(*args, searcher=self, **kwargs)

    def search_json(self, *args, **kwargs):
        """search_json(...) on this searcher's threads."""
        return search_json(*args, searcher=self, **kwargs)

    def close(self):
        """End its threads (again: nothing)."""
        if getattr(self, "_h", None) is not None:
            _lib.sc_searcher_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def data_dir():
    """The data directory holding validation/ (as `stepcast validate` finds
    it): $STEPCAST_DATA, share/stepcast beside the library's prefix, or the
    source tree's data/."""
    env = os.environ.get("STEPCAST_DATA")
    cands = [env] if env else []
    lib_dir = os.path.dirname(os.path.abspath(_lib_path)) if os.sep in _lib_path else None
    if lib_dir:
        cands += [os.path.join(lib_dir, "..", "share", "stepcast"),
                  os.path.join(lib_dir, "..", "..", "share", "stepcast")]
    cands += [os.path.join(_SOURCE, "data"), "/usr/local/share/stepcast", "/usr/share/stepcast"]
    for c in cands:
        if c and os.path.isdir(os.path.join(c, "validation")):
            return os.path.normpath(c)
    raise Error(3, "no data directory found (set STEPCAST_DATA)")


def _shipped_sets():
    """(paths, names) of every shipped set, in the command's order; names
    as the command gives them (validation/KIND/FILE.csv)."""
    d = data_dir()
    sets = []
    for kind in ("training", "collectives", "dp_training", "recsys"):
        sets += sorted(glob.glob(os.path.join(d, "validation", kind, "*.csv")))
    return sets, [os.path.relpath(p, d).replace(os.sep, "/") for p in sets]


def validate_json(paths=None, *, engine="closed", timings=False, html=None):
    """The text of ``stepcast validate --format json`` (paths None: every
    shipped set, named as the command names them; the options as
    validate())."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if paths is None:
        paths, names = _shipped_sets()
    else:
        paths = [os.fspath(p) for p in paths]
        names = paths
    o = _ValidateOpts(event=_event(engine), timings=int(bool(timings)), html=_file(html))
    arr, n = _strings(paths)
    nm, _ = _strings(names)
    return _call(_lib.sc_validate_json_ex, arr, nm, n, ctypes.byref(o))


def validate(paths=None, *, engine="closed", html=None):
    """Predict published measurements: one dict per row (file, kind, id,
    measured, predicted, ape, skipped; training rows also fits,
    fits_confidence ("clear" or "marginal"), memory_gib, capacity_gib: the
    memory model's verdict), ready for pandas.DataFrame. Rows
    not predicted have predicted and ape None and the reason in skipped.
    paths: CSV files, or None for every set shipped with stepcast;
    engine="event" predicts the training rows with the event engine
    (--engine event); html names a file for the HTML report (--html)."""
    doc = json.loads(validate_json(paths, engine=engine, html=html))
    kinds = {f["file"]: f["kind"] for f in doc["files"]}
    return [dict(r, kind=kinds[r["file"]]) for r in doc["rows"]]


def validate_row_json(path, id, *, engine="closed", ops=False):
    """The text of ``stepcast validate --row ID FILE.csv --format json``."""
    return _call(_lib.sc_validate_row_json, os.fsencode(path), str(id).encode("utf-8"),
                 _event(engine), int(bool(ops)))


def validate_row(path, id, *, engine="closed", ops=False):
    """One row of a measurement set predicted as predict() shows it, as
    ``stepcast validate --row ID FILE.csv --format json``: the document of
    the scenario its cells (and blank cells' defaults) give; ops=True adds
    layer_ops and op_kinds (closed form); engine="event" gives the event
    engine's document; a data-parallel row, its scheme's."""
    return json.loads(validate_row_json(path, id, engine=engine, ops=ops))


def collective_json(op="all_reduce", ranks=8, ranks_per_node=None, arch=80, nvlink_GBps=300,
                    nic_Gbps=200, min_bytes=1024, max_bytes=1 << 30, factor=2, topo=None,
                    algo=None, gpus_per_thread=1, fabric="infiniband", pcie_GBps=0, *,
                    html=None, host_cpu="auto"):
    """The text of ``stepcast collective --format json`` (html as collective())."""
    o = _SweepOpts()
    _lib.sc_coll_sweep_default(ctypes.byref(o))
    code = _lib.sc_coll_op_from_name(op.encode("utf-8"))
    if code < 0:
        raise Error(2, f"unknown op '{op}' (valid: all_reduce all_gather reduce_scatter "
                       "all_to_all broadcast reduce send_recv)")
    o.op, o.ranks, o.arch = code, int(ranks), int(arch)
    o.ranks_per_node = int(ranks_per_node if ranks_per_node is not None else min(ranks, 8))
    o.nvlink_GBps, o.nic_Gbps = float(nvlink_GBps), float(nic_Gbps)
    if pcie_GBps:  # no NVLink: the PCIe slot's x16 rate (collective --pcie)
        o.nvlink_GBps, o.pcie = float(pcie_GBps), 1
    o.min_bytes, o.max_bytes, o.factor = float(min_bytes), float(max_bytes), float(factor)
    o.gpus_per_thread = int(gpus_per_thread)
    o.fabric = _lib.sc_fabric_from_name(str(fabric).encode("utf-8"))
    if o.fabric < 0:
        raise Error(2, f"unknown fabric '{fabric}' (valid: infiniband roce efa tcpxo)")
    o.host_cpu = _lib.sc_host_cpu_from_name(str(host_cpu).encode("utf-8"))
    if o.host_cpu < 0:
        raise Error(2, f"unknown CPU '{host_cpu}' (valid: auto intel amd arm)")
    for field, value, cap in (("topo", topo, 256), ("algo", algo, 32)):
        raw = os.fsencode(value) if value else b""
        if len(raw) >= cap:
            raise Error(2, f"{field} is longer than {cap - 1} bytes")
        setattr(o, field, raw)
    return _call(_lib.sc_collective_json_ex, ctypes.byref(o), _file(html))


def collective(op="all_reduce", ranks=8, ranks_per_node=None, arch=80, nvlink_GBps=300,
               nic_Gbps=200, min_bytes=1024, max_bytes=1 << 30, factor=2, topo=None, algo=None,
               gpus_per_thread=1, fabric="infiniband", pcie_GBps=0, *, html=None,
               host_cpu="auto"):
    """One collective over a range of sizes, as ``stepcast collective
    --format json``: {"op", "ranks", "ranks_per_node", "arch", "link",
    "link_GBps", "nic_Gbps", "fabric", "host_cpu", "gpus_per_thread",
    "topology", "rows": [{"bytes", "time_us",
    "algbw_GBps", "busbw_GBps", "algo", "proto"[, "flow_us",
    "flow_busbw_GBps"]}]}; topo (a generator spec or a .json file) adds the
    flow engine's time on that topology with plug-in algo; gpus_per_thread
    is nccl-tests' -g (GPUs one thread drives; docs/network.md); fabric is
    the network's kind (infiniband roce efa tcpxo; docs/network.md
    "Fabrics"); pcie_GBps > 0: no NVLink, PCIe slots of that x16 rate
    (``--pcie``; docs/network.md "PCIe nodes"); html, a file for the page
    of ``--html`` (the bus-bandwidth curve; docs/report.md); host_cpu, the
    servers' CPU (auto intel amd arm; ``--host-cpu``)."""
    return json.loads(collective_json(op, ranks, ranks_per_node, arch, nvlink_GBps, nic_Gbps,
                                      min_bytes, max_bytes, factor, topo, algo, gpus_per_thread,
                                      fabric, pcie_GBps, html=html, host_cpu=host_cpu))


def presets_json():
    """The text of ``stepcast presets --format json``."""
    return _call(_lib.sc_presets_json)


def presets():
    """The GPU, model and cluster presets, as ``stepcast presets --format
    json``: {"gpus": [...], "models": [...], "clusters": [...]}, in bytes,
    bytes/s and TFLOP/s (docs/output.md)."""
    return json.loads(presets_json())


def recsys_predict_json(job, sharding=None, overrides=None, *, trace=None):
    """`stepcast recsys predict JOB [--sharding KIND] [--set KEY=VALUE]...
    [--trace FILE] --format json` of a recommendation job file
    (docs/recsys.md): sharding None keeps the job's own, else a kind for
    every table ("row_wise", ...); overrides set keys of the job as --set
    ({"cluster.gpus": 16} or ["cluster.gpus=16"]); trace names a file for
    the iteration as Chrome trace JSON (Perfetto). A job without a sharding
    gives the prediction of the planner's best plan (default options),
    where the command lists the plans as `recsys plan` does: recsys_plan()
    takes the planner's options."""
    ov, n = _strings(_overrides(overrides))
    return _call(_lib.sc_rs_predict_json_ex, os.fsencode(job), ov, n,
                 sharding.encode("utf-8") if sharding else None, _file(trace))


def recsys_predict(job, sharding=None, overrides=None, *, trace=None):
    """recsys_predict_json as a dict: iter_s, breakdown, memory (fits), gpus, sharding."""
    return json.loads(recsys_predict_json(job, sharding, overrides, trace=trace))


def recsys_row_json(path, id):
    """The text of `stepcast recsys row FILE.csv ID --format json`."""
    return _call(_lib.sc_rs_row_json, os.fsencode(path), str(id).encode("utf-8"))


def recsys_row(path, id):
    """One row of a recommendation measurement set predicted (the job and
    sharding its cells give; docs/accuracy.md), as recsys_predict's dict."""
    return json.loads(recsys_row_json(path, id))


def _headroom(value):
    """(bytes, fraction) of a headroom as `search --headroom` reads it
    (GiB 4, a fraction 0.1, or "10%"), parsed by the library
    (sc_search_opts_set), as `recsys plan --headroom` does; else Error 2
    with its message."""
    so = _SearchOpts()
    _lib.sc_search_opts_default(ctypes.byref(so))
    err = _Err()
    rc = _lib.sc_search_opts_set(ctypes.byref(so), b"headroom",
                                 _opt_text(value).encode("utf-8"), ctypes.byref(err))
    if rc != 0:
        raise Error(rc, err.msg.decode("utf-8", "replace"))
    return so.headroom_bytes, so.headroom_frac


def recsys_plan_json(job, top=5, max_seconds=0, max_evals=0, *, headroom=None, overrides=None,
                     trace=None):
    """`stepcast recsys plan JOB --top K [--max-seconds S] [--max-evals N]
    [--headroom X] [--set KEY=VALUE]... [--trace FILE] --format json`: the
    fastest shardings that fit; a budget of 0 is none, and a search a
    budget stopped returns the best found so far (its document says so:
    "stopped"); headroom as search()'s (memory kept free on every GPU);
    overrides as recsys_predict's; trace, the iteration of the best plan."""
    o = _RsPlanOpts()
    _lib.sc_rs_plan_opts_default(ctypes.byref(o))
    o.top, o.max_seconds, o.max_evals = int(top), float(max_seconds), int(max_evals)
    if headroom is not None:
        o.headroom_bytes, o.headroom_frac = _headroom(headroom)
    ov, n = _strings(_overrides(overrides))
    return _call(_lib.sc_rs_plan_json_ex, os.fsencode(job), ov, n, ctypes.byref(o), _file(trace))


def recsys_plan(job, top=5, max_seconds=0, max_evals=0, *, headroom=None, overrides=None,
                trace=None):
    """recsys_plan_json as a dict: evaluated, exhaustive, stopped, plans
    [{rank, why, prediction}] (prediction.memory.headroom_bytes: what the
    headroom kept free)."""
    return json.loads(recsys_plan_json(job, top, max_seconds, max_evals, headroom=headroom,
                                       overrides=overrides, trace=trace))


def _number(v):
    """float(v), or None when v is not a number."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _whatif_number(name, v):
    """v as a float in 1e-9..1e9, the range `stepcast trace` takes for its
    what-if numbers (cli/cmd_trace.c positive): 0 would mean the library's
    default (nvlink, nic) and a larger one overflows; else Error 2."""
    x = None if isinstance(v, bool) else _number(v)
    if x is None or not 1e-9 <= x <= 1e9:
        raise Error(2, f"{name}: expected a number in 1e-9..1e9, got {v!r}")
    return x


# trace()'s keywords renamed to collective()'s (and the JSON documents'
# and scenario keys') names: old name -> new; the old still work, with a
# DeprecationWarning.
_TRACE_RENAMED = {"nvlink": "nvlink_GBps", "nic": "nic_Gbps", "ppn": "ranks_per_node"}


def _renamed(kw, old, func):
    """kw with the deprecated keywords in old given under their new names
    (_TRACE_RENAMED), a DeprecationWarning each at the caller of func;
    TypeError for a keyword func does not take, or one given under both
    its names."""
    for name, value in old.items():
        new = _TRACE_RENAMED.get(name)
        if new is None:
            raise TypeError(f"{func}() got an unexpected keyword argument '{name}'")
        if kw[new] is not None:
            raise TypeError(f"{func}() got both '{new}' and its old name '{name}'")
        warnings.warn(f"{func}(): '{name}=' is deprecated, use '{new}=' (the name "
                      "collective() and the JSON documents use)", DeprecationWarning,
                      stacklevel=3)
        kw[new] = value
    return kw


def _trace_whatif(dp_scale, gpu, nvlink_GBps, nic_Gbps, ranks_per_node, no_overlap, comm_model):
    """The sc_trace_whatif of the what-if keywords (units as the command's
    options: nvlink_GBps GB/s, nic_Gbps Gb/s), or None when none is given
    (the command's report without a what-if column)."""
    nvlink, nic, ppn = nvlink_GBps, nic_Gbps, ranks_per_node
    if (dp_scale, gpu, nvlink, nic, ppn) == (None,) * 5 and not no_overlap and not comm_model:
        return None
    w = _TraceWhatif()
    _lib.sc_trace_whatif_default(ctypes.byref(w))
    if dp_scale is not None:
        w.dp_scale = _whatif_number("dp_scale", dp_scale)
    if gpu is not None:
        w.gpu = str(gpu).encode("utf-8")
    if nvlink is not None:
        w.nvlink_bw = _whatif_number("nvlink_GBps", nvlink) * 1e9   # as --nvlink: GB/s
    if nic is not None:
        w.nic_bw = _whatif_number("nic_Gbps", nic) * 1e9 / 8        # as --nic: Gb/s
    if ppn is not None:
        x = None if isinstance(ppn, bool) else _number(ppn)
        if x is None or not 1 <= x <= 1e9 or x != int(x):
            raise Error(2, f"ranks_per_node: expected a whole number of GPUs per NVLink domain "
                           f"(1, 2, 8, ...), got {ppn!r}")
        w.ranks_per_node = int(x)
    if no_overlap:
        w.overlap = 0
    if comm_model:
        w.comm_model = 1
    return w


def _same_file_twice(files):
    """Error 2 when a file is named twice (by name or as the same inode):
    it would count as two ranks of the job, as cli/cmd_trace.c refuses."""
    seen = {}
    for f in files:
        try:
            st = os.stat(f)
            key = (st.st_dev, st.st_ino)
        except OSError:
            key = f                  # unreadable: sc_trace_load says so
        if key in seen or f in seen.values():
            raise Error(2, "the same trace is given twice (each file is one rank of the job): "
                           f"'{os.fsdecode(f)}'")
        seen[key] = f


def _taken(buf):
    """The text of a string the library allocated, freed."""
    try:
        return ctypes.string_at(buf).decode("utf-8", "replace") if buf else ""
    finally:
        _lib.sc_free(buf)


def _trace_text(paths, kw, stacklevel):
    """The document of trace_json; the load's and replay's warnings issued
    as TraceWarning, stacklevel frames up (the caller of the public function)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = [os.fsencode(p) for p in paths]
    _same_file_twice(files)
    arr = (ctypes.c_char_p * max(len(files), 1))(*files)
    w = _trace_whatif(kw["dp_scale"], kw["gpu"], kw["nvlink_GBps"], kw["nic_Gbps"],
                      kw["ranks_per_node"], kw["no_overlap"], kw["comm_model"])
    buf, wbuf, err = ctypes.POINTER(ctypes.c_char)(), ctypes.POINTER(ctypes.c_char)(), _Err()
    rc = _lib.sc_trace_json_ex(arr, len(files), ctypes.byref(w) if w else None,
                               _file(kw["perfetto"]), _file(kw["export_graph"]),
                               ctypes.byref(buf), ctypes.byref(wbuf), ctypes.byref(err))
    if rc != 0:
        raise Error(rc, err.msg.decode("utf-8", "replace"))
    text, warned = _taken(buf), _taken(wbuf)
    for line in warned.splitlines():
        if line:
            warnings.warn(line, TraceWarning, stacklevel=stacklevel + 1)
    return text


def trace_json(paths, *, dp_scale=None, gpu=None, nvlink_GBps=None, nic_Gbps=None,
               ranks_per_node=None, no_overlap=False, comm_model=False, perfetto=None,
               export_graph=None, **deprecated):
    """The text of ``stepcast trace FILE... --format json`` (the options
    and the warnings as trace())."""
    kw = _renamed(dict(dp_scale=dp_scale, gpu=gpu, nvlink_GBps=nvlink_GBps, nic_Gbps=nic_Gbps,
                       ranks_per_node=ranks_per_node, no_overlap=no_overlap,
                       comm_model=comm_model, perfetto=perfetto, export_graph=export_graph),
                  deprecated, "trace_json")
    return _trace_text(paths, kw, 2)


def trace(paths, *, dp_scale=None, gpu=None, nvlink_GBps=None, nic_Gbps=None,
          ranks_per_node=None, no_overlap=False, comm_model=False, perfetto=None,
          export_graph=None, **deprecated):
    """Replay the PyTorch profiler traces of one job (a file, or one per
    rank: Kineto JSON, plain or gzip, Chakra ETs; docs/trace.md), as
    ``stepcast trace FILE... --format json``: {"jobs": [{"files", "ranks",
    "gpu", "measured_step_s", "predicted_step_s", "critical_path",
    "replay": {...}, "whatif": {"change", "result", "step_change"}}]},
    "whatif" only when a what-if keyword is given (docs/trace.md). The what-if
    keywords are the command's options: dp_scale (--dp-scale), gpu (a
    preset, --gpu), nvlink_GBps (--nvlink, GB/s per GPU per direction),
    nic_Gbps (--nic, Gb/s), ranks_per_node (--ppn, GPUs per NVLink domain;
    the names collective() takes; the old nvlink=, nic= and ppn= still
    work, with a DeprecationWarning), no_overlap=True, comm_model=True. perfetto:
    a file to write the replayed schedule to (--perfetto); export_graph:
    the file the loaded graph is written to as Kineto JSON, one per rank
    (OUT-rankN.json for several; --export-graph). A bad file or
    value raises Error (2 bad input, 3 I/O) with the command's message;
    what the command warns about on standard error is issued as
    TraceWarning (warnings.warn), one warning a line."""
    kw = _renamed(dict(dp_scale=dp_scale, gpu=gpu, nvlink_GBps=nvlink_GBps, nic_Gbps=nic_Gbps,
                       ranks_per_node=ranks_per_node, no_overlap=no_overlap,
                       comm_model=comm_model, perfetto=perfetto, export_graph=export_graph),
                  deprecated, "trace")
    return json.loads(_trace_text(paths, kw, 2))


def version():
    """The library's version (SC_VERSION)."""
    return "0.1.0"
