"""Exception types whose messages name the file, column and reason of a failure."""


class UqvalError(Exception):
    """Base class of the errors uqval raises on bad configuration or input data."""


class ConfigError(UqvalError):
    """A configuration or dataset-registry file is malformed or inconsistent."""


class DataError(UqvalError):
    """A data file cannot be turned into a valid dataset (missing column, NaN, empty, ...)."""


class FetchError(UqvalError):
    """A raw data file could not be obtained, or its checksum does not match."""
