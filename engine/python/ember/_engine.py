"""The engine-wide calls: sync, flush_plans, stats, recent_misses, seed. Configuration is ember's
own: the EMBER_* environment variables and ember.toml, read once per process when a device is
first used (docs/CONFIGURATION.md)."""

from . import _ember
from ._creation import _device


def sync(device=None):
    """Runs everything the calling thread has queued on `device` (default "cpu") and waits for it;
    with a plan database in a file, the plans found so far are in the file too."""
    _ember.sync(_device(device))


def flush_plans(device=None):
    """sync, then waits until the plans, triggers, kernels and counters found so far are written
    to the plan database."""
    _ember.flush_plans(_device(device))


def stats(device=None):
    """ember::Stats of `device` as a dict with the C++ field names (misses, graphs and start are
    dicts of their own)."""
    return _ember.stats(_device(device))


def recent_misses(device=None):
    """The device's most recent plan misses, explained (the lines EMBER_LOG=medium prints)."""
    return _ember.recent_misses(_device(device))


def seed(seed, device=None):
    """Reseeds the device's random generator (the calling thread's pending ops run first)."""
    _ember.seed(_device(device), int(seed))
