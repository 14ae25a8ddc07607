"""The one table reader of uqval: ``uqval validate``, ``uqval compare`` and the pipeline's
preparation read CSV, TSV (optionally compressed) and Parquet files through this module, with
the same rules everywhere.

Every failure raises :class:`uqval._internal.errors.DataError` with one line naming the file,
the line or column and the reason; a value is quoted as an excerpt of at most 40 characters
with control characters removed (:func:`printable`).

Rules, in the order they are checked:

* **Format from the suffixes.** ``.parquet``/``.pq``: Parquet (needs pyarrow). Otherwise a text
  table, decompressed when the last suffix is ``.gz``, ``.bz2``, ``.xz`` or ``.zip`` (one
  member); the separator comes from the suffix *before* any compression suffix: ``.csv`` comma,
  ``.tsv``/``.tab`` tab; ``.txt`` and other suffixes are sniffed by :class:`csv.Sniffer` on the
  first 64 KiB only (comma, tab, semicolon, bar or runs of spaces; comma if undecided). pandas'
  ``sep=None`` (which sniffs through the python engine) is never used.
* **Bounded decompression.** A compressed file is decompressed as a stream, counting bytes: it
  may expand to at most ``min(2 GiB, max(16 MiB, 100 x its compressed size))``
  (:func:`decompressed_limit`). Numeric tables compress 2-5x with gzip, a sparse one-hot table
  about 40x; gzip can reach about 1000x and bz2 far more on repeated bytes, so a 1 KB bomb stops
  after 16 MiB instead of filling the memory. A genuine table beyond the limit can be
  decompressed by the user and given as a plain file: a plain file's size is its real size and
  it has no limit beyond that. Parquet files are refused when their metadata announce more than
  the same limit (rows x columns x 8 bytes, or the uncompressed column data).
* **Text.** UTF-8 (a byte-order mark is ignored); a NUL byte is refused as binary data with its
  byte position (1-based, in the decompressed text) and line; a line may hold at most 1 MiB.
* **Header.** Duplicate column names are refused with both positions; names with control
  characters are refused.
* **Excel's separator line.** A first line ``sep=X`` (written by Excel to name the separator)
  gives the separator (over the suffix's) and is not read as the header; line numbers in
  messages still count it.
* **Fields.** ``index_col=False``: the first column is never taken as an index. A row with more
  fields than the header (or the given names) is refused with its 1-based line number, unless
  the extra fields are empty (writers that print ``value,`` in a loop): those are dropped.

Memory stays bounded by the input's real size: a first pass streams the (decompressed) bytes
in 1 MiB chunks to check the size, NUL bytes, UTF-8 and line lengths before pandas parses
anything; only then does pandas read the table (a second stream, counted against the same
limit). A row with extra fields is located by a third, streaming pass with :mod:`csv`, only
when pandas reports such rows.

**Provenance.** The SHA-256 recorded for an input is that of the bytes parsed: every pass
over the file hashes the (compressed) bytes it reads (:class:`FileBytes`), and two passes that
read the whole file must give the same digest, while the file's identity (inode, size,
modification and change times) must stay what it was when first opened. A file that changes
while it is read (another program writing it, ``cp`` over it) is refused with one line
(:func:`changed_error`); one that changes *after* it was read does not matter, since its digest
was taken from the bytes read. A zip file (read by seeking) and a Parquet file are hashed by
one sequential pass first, then read from the same unchanged file.

:func:`read_table` returns the whole table; ``uqval validate`` and ``uqval compare`` read
through :mod:`uqval._internal.batched` instead (same rules and messages, only the columns they
use, in batches of rows), which shares :func:`checked_text`, :func:`csv_failures`,
:func:`extra_fields_options`, :func:`parquet_file` and :func:`parquet_failures` with it.
"""

from __future__ import annotations

import bz2
import codecs
import csv
import gzip
import hashlib
import io
import lzma
import math
import re
import warnings
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from uqval._internal.errors import DataError
from uqval._internal.provenance import FileBytes, changed_error
from uqval._internal.terminal import _CONTROL, EXCERPT_CHARS, printable

__all__ = [
    "CheckedText",
    "EXCERPT_CHARS",
    "FileBytes",
    "MAX_DECOMPRESSED_BYTES",
    "MAX_EXPANSION",
    "MAX_LINE_BYTES",
    "MIN_DECOMPRESSED_LIMIT",
    "SNIFF_BYTES",
    "TableFormat",
    "changed_error",
    "checked_text",
    "csv_failures",
    "decompressed_limit",
    "extra_fields_options",
    "file_sha256",
    "parquet_failures",
    "parquet_file",
    "printable",
    "read_csv_table",
    "read_table",
    "require_columns",
    "table_format",
]

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
MAX_DECOMPRESSED_BYTES = 2 * GIB
"""Largest decompressed text of a compressed table, whatever its compressed size."""
MAX_EXPANSION = 100
"""Largest ratio of decompressed to compressed size (above the 16 MiB floor)."""
MIN_DECOMPRESSED_LIMIT = 16 * MIB
"""A compressed table may always expand to this size, however small the file."""
MAX_LINE_BYTES = 1 * MIB
"""Longest line of a text table, in bytes."""
SNIFF_BYTES = 64 * KIB
"""Bytes of the decoded start of a file that the separator sniffing looks at."""

_CHUNK = MAX_LINE_BYTES  # lines inside a chunk are shorter than a chunk: see _check_text
_COMPRESSIONS = {".gz": "gzip", ".gzip": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip"}
_UNSUPPORTED = {".zst", ".zstd", ".7z", ".rar", ".lz4", ".tgz", ".tar", ".z", ".lzma"}
_SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_PARQUET = {".parquet", ".pq"}
_NOT_TABLES = {  # suffixes of formats that are not read, with what to do instead
    ".xlsx": "an Excel workbook: export the sheet as CSV",
    ".xls": "an Excel workbook: export the sheet as CSV",
    ".xlsm": "an Excel workbook: export the sheet as CSV",
    ".ods": "a spreadsheet: export the sheet as CSV",
    ".json": "JSON: write the table as CSV or Parquet (pandas: df.to_csv)",
    ".pkl": "a pickle, never loaded (it can run code): write the table as CSV or Parquet",
    ".pickle": "a pickle, never loaded (it can run code): write the table as CSV or Parquet",
    ".npy": "a NumPy array: write it as CSV with named columns",
    ".npz": "NumPy arrays: write them as CSV with named columns",
    ".h5": "HDF5: write the table as CSV or Parquet",
    ".hdf5": "HDF5: write the table as CSV or Parquet",
    ".feather": "Feather: write the table as Parquet",
    ".xml": "XML: write the table as CSV",
    ".html": "HTML: write the table as CSV",
}
_SNIFF_CANDIDATES = ",\t;| "
_WHITESPACE = r"\s+"
# zipfile: RuntimeError for an encrypted member, NotImplementedError for an unknown method
_DECOMPRESSION_ERRORS = (EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile, OSError,
                         RuntimeError, NotImplementedError)
_BINARY_HINTS = ((b"\x1f\x8b", " (it looks gzip-compressed: name it .csv.gz)"),
                 (b"PK\x03\x04", " (it looks like a .zip or .xlsx file: export the sheet as CSV)"),
                 (b"\xff\xfe", " (it looks like UTF-16 text: save it as UTF-8)"),
                 (b"\xfe\xff", " (it looks like UTF-16 text: save it as UTF-8)"),
                 (b"PAR1", " (it looks like Parquet: name it .parquet)"))
_EXPECTED_FIELDS = re.compile(r"Expected \d+ fields in line \d+, saw \d+")


def cell_excerpt(value: object) -> str:
    """A bad cell for a message: its sanitised excerpt, and "(beyond the float range)" when it
    is a number too large for float64 (1e400), which pandas reads as not a number.

    >>> cell_excerpt("1e400"), cell_excerpt("abc")
    ("'1e400' (beyond the float range, about 1.8e308)", "'abc'")
    """
    text = printable(value)
    try:
        huge = math.isinf(float(str(value))) and "inf" not in str(value).lower()
    except ValueError:
        huge = False
    return f"{text!r}" + (" (beyond the float range, about 1.8e308)" if huge else "")


def _where(path: Path) -> str:
    return printable(path, None)


def _size_text(n: float) -> str:
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n >= size:
            return f"{n / size:.1f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{int(n)} bytes"


def decompressed_limit(compressed_size: int) -> int:
    """Largest decompressed size accepted for a compressed file of ``compressed_size`` bytes:
    ``min(MAX_DECOMPRESSED_BYTES, max(MIN_DECOMPRESSED_LIMIT, MAX_EXPANSION * size))``.

    >>> decompressed_limit(1000) == 16 * MIB
    True
    >>> decompressed_limit(10**9) == 2 * GIB
    True
    """
    return min(MAX_DECOMPRESSED_BYTES,
               max(MIN_DECOMPRESSED_LIMIT, MAX_EXPANSION * int(compressed_size)))


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class TableFormat:
    """How a file is read: ``kind`` ``"csv"`` or ``"parquet"``, its ``compression`` (None,
    ``"gzip"``, ``"bz2"``, ``"xz"``, ``"zip"``) and ``separator`` (None: sniffed)."""

    kind: str
    compression: str | None
    separator: str | None


def table_format(path: Path) -> TableFormat:
    """The :class:`TableFormat` of ``path`` from its suffixes (module docstring).

    >>> table_format(Path("a.tsv.xz"))
    TableFormat(kind='csv', compression='xz', separator='\\t')
    >>> table_format(Path("a.csv.gz")).separator
    ','
    """
    path = Path(path)
    last = path.suffix.lower()
    if last in _PARQUET:
        return TableFormat("parquet", None, None)
    if last in _UNSUPPORTED:
        raise DataError(f"{_where(path)}: '{printable(last)}' compression is not supported; "
                        "use .gz, .bz2, .xz or .zip, or decompress the file")
    compression = _COMPRESSIONS.get(last)
    inner = Path(path.stem).suffix.lower() if compression else last
    if inner in _NOT_TABLES:
        raise DataError(f"{_where(path)}: '{inner}' is {_NOT_TABLES[inner]}; the tables read "
                        "are .csv, .tsv, .txt (optionally .gz, .bz2, .xz, .zip) and .parquet")
    if inner in _PARQUET:
        raise DataError(f"{_where(path)}: a compressed Parquet file; Parquet compresses its "
                        "columns itself, give the .parquet file")
    return TableFormat("csv", compression, _SEPARATORS.get(inner))


class _Limited(io.RawIOBase):
    """The decompressed bytes of a stream, refusing to go beyond ``limit`` bytes."""

    def __init__(self, source: Any, limit: int | None, refuse: Any) -> None:
        super().__init__()
        self._source = source
        self._limit = limit
        self._refuse = refuse
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._source.read(len(buffer))
        n = len(data)
        self.count += n
        if self._limit is not None and self.count > self._limit:
            raise self._refuse()
        buffer[:n] = data
        return n


def _size_error(path: Path, compressed: int, limit: int) -> DataError:
    return DataError(
        f"{_where(path)}: decompresses to more than {_size_text(limit)}, the limit for a "
        f"{_size_text(compressed)} file ({MAX_EXPANSION} x its size, at least "
        f"{_size_text(MIN_DECOMPRESSED_LIMIT)}, at most {_size_text(MAX_DECOMPRESSED_BYTES)}); "
        "refused to protect the memory (a compression bomb?). If the table is genuine, "
        "decompress it and give the plain file"
    )


@contextmanager
def _decompressed(path: Path, fmt: TableFormat, raw: FileBytes | None = None
                  ) -> Iterator[_Limited]:
    """The (decompressed) bytes of ``path``, counted against :func:`decompressed_limit`; the
    file's bytes are read (and hashed) through ``raw`` (module docstring, "Provenance")."""
    raw = FileBytes(path) if raw is None else raw
    size = path.stat().st_size
    limit = None if fmt.compression is None else decompressed_limit(size)
    with ExitStack() as stack:
        handle = stack.enter_context(raw.open(whole_first=fmt.compression == "zip"))
        source: Any  # a binary file object with read(n)
        if fmt.compression is None:
            source = handle
        elif fmt.compression == "gzip":
            source = stack.enter_context(gzip.GzipFile(fileobj=handle, mode="rb"))
        elif fmt.compression == "bz2":
            source = stack.enter_context(bz2.BZ2File(handle, "rb"))
        elif fmt.compression == "xz":
            source = stack.enter_context(lzma.LZMAFile(handle, "rb"))
        else:
            archive = stack.enter_context(zipfile.ZipFile(handle))
            members = [m for m in archive.infolist() if not m.is_dir()]
            if len(members) != 1:
                raise DataError(f"{_where(path)}: a .zip file must hold exactly one table, "
                                f"it holds {len(members)} files")
            source = stack.enter_context(archive.open(members[0]))
        yield _Limited(source, limit, lambda: _size_error(path, size, limit or 0))


@dataclass
class _TextFacts:
    size: int
    head: bytes
    lines: int


def _first_break(chunk: bytes) -> int:
    found = [i for i in (chunk.find(b"\n"), chunk.find(b"\r")) if i >= 0]
    return min(found) if found else -1


def _check_text(path: Path, fmt: TableFormat, raw: FileBytes) -> _TextFacts:
    """First pass: size limit, NUL bytes, UTF-8 and line lengths, one chunk at a time."""
    where = _where(path)
    decoder = codecs.getincrementaldecoder("utf-8")()
    total, line, since_break = 0, 1, 0
    head = bytearray()
    with _decompressed(path, fmt, raw) as stream:
        while chunk := stream.read(_CHUNK):
            nul = chunk.find(b"\0")
            if nul >= 0:
                at = line + chunk.count(b"\n", 0, nul)
                hint = next((h for magic, h in _BINARY_HINTS
                             if total == 0 and chunk.startswith(magic)), "")
                raise DataError(f"{where}: binary data (a NUL byte) at byte {total + nul + 1}, "
                                f"line {at}; a table must be text{hint}")
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                offset = total - pending + exc.start
                at = line + chunk.count(b"\n", 0, max(0, exc.start - pending))
                raise DataError(f"{where}: line {at}: not UTF-8 text (byte {offset + 1}: "
                                f"{exc.reason}); save the table as UTF-8") from None
            first = _first_break(chunk)
            if first < 0:
                since_break += len(chunk)
            else:
                since_break += first
            if since_break > MAX_LINE_BYTES:
                raise DataError(f"{where}: line {line} is longer than "
                                f"{_size_text(MAX_LINE_BYTES)}; not a table of values")
            if first >= 0:
                # lines between the first and the last break of a chunk are shorter than it
                since_break = len(chunk) - 1 - max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
                line += chunk.count(b"\n")
            if len(head) < MAX_LINE_BYTES + 4:
                head += chunk[: MAX_LINE_BYTES + 4 - len(head)]
            total += len(chunk)
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise DataError(f"{where}: line {line}: not UTF-8 text (the file ends inside a "
                        "character); save the table as UTF-8") from None
    if total == 0:
        raise DataError(f"{where}: the file is empty (no header and no data rows)")
    return _TextFacts(total, bytes(head), line)


def _sniff(path: Path, head: bytes) -> str:
    sample = head[:SNIFF_BYTES].decode("utf-8-sig", errors="ignore")
    if len(head) > SNIFF_BYTES and "\n" in sample:
        sample = sample[: sample.rindex("\n") + 1]
    try:
        delimiter = csv.Sniffer().sniff(sample, delimiters=_SNIFF_CANDIDATES).delimiter
    except csv.Error:
        return ","
    return _WHITESPACE if delimiter == " " else delimiter


def _reader_options(sep: str, skipinitialspace: bool) -> dict[str, Any]:
    if sep == _WHITESPACE:
        return {"delimiter": " ", "skipinitialspace": True}
    return {"delimiter": sep, "skipinitialspace": skipinitialspace}


@contextmanager
def _field_limit(limit: int) -> Iterator[None]:
    previous = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _first_record(path: Path, head: bytes, sep: str, skipinitialspace: bool) -> list[str]:
    text = head.decode("utf-8-sig", errors="replace")
    with _field_limit(MAX_LINE_BYTES + 4):
        try:
            reader = csv.reader(io.StringIO(text, newline=""),
                                **_reader_options(sep, skipinitialspace))
            for record in reader:
                if record:
                    return record
        except csv.Error as exc:
            raise DataError(f"{_where(path)}: line 1: cannot read the header line "
                            f"({printable(exc, 200)})") from None
    raise DataError(f"{_where(path)}: the file is empty (no header and no data rows)")


def _check_names(path: Path, names: Sequence[str], hint: str) -> None:
    """Refuse control characters and duplicates in the names of the header line."""
    where = _where(path)
    for j, name in enumerate(names, start=1):
        if _CONTROL.search(name):
            raise DataError(f"{where}: line 1, column {j}: the column name "
                            f"'{printable(name)}' contains control characters; rename it")
    positions: dict[str, list[int]] = {}
    for j, name in enumerate(names, start=1):
        if name != "":
            positions.setdefault(name, []).append(j)
    duplicates = [(n, p) for n, p in positions.items() if len(p) > 1]
    if duplicates:
        shown = "; ".join(
            f"{printable(n)} (columns {', '.join(map(str, p[:-1]))} and {p[-1]})"
            for n, p in duplicates[:5])
        more = f"; and {len(duplicates) - 5} more" if len(duplicates) > 5 else ""
        raise DataError(f"{where}: duplicate column name(s) in the header line: "
                        f"{shown}{more}; {hint}")


def _locate_extra_fields(path: Path, fmt: TableFormat, raw: FileBytes, checked: CheckedText
                         ) -> bool:
    """Third pass, only when pandas reports rows with more fields than ``n_fields``: raise a
    DataError naming the first row whose extra fields are not all empty; return whether some
    rows had (empty) extra fields."""
    where = _where(path)
    sep, n_fields, what = checked.sep, checked.n_fields, checked.what
    wider = False
    with _decompressed(path, fmt, raw) as stream, _field_limit(MAX_LINE_BYTES + 4):
        text = io.TextIOWrapper(io.BufferedReader(stream, _CHUNK), encoding="utf-8-sig",
                                newline="")
        reader = csv.reader(text, **_reader_options(sep, checked.skipinitialspace))
        data_row = 0 if not checked.header else -1
        skip = checked.skiprows
        try:
            for record in reader:
                if skip:  # Excel's "sep=" line
                    skip -= 1
                    continue
                if not record:
                    continue  # a blank line (pandas skips them too)
                data_row += 1
                if data_row == 0 or len(record) <= n_fields:
                    continue
                extra = [v for v in record[n_fields:] if v.strip() != ""]
                if extra:
                    row = f" (data row {data_row})" if data_row > 0 else ""
                    raise DataError(
                        f"{where}: line {reader.line_num}{row}: {len(record)} fields where "
                        f"{what} {n_fields}; field {n_fields + 1} holds "
                        f"'{printable(extra[0])}' (a separator inside an unquoted value?)")
                wider = True
        except csv.Error as exc:
            raise DataError(f"{where}: line {reader.line_num}: cannot be parsed as CSV "
                            f"({printable(exc, 200)})") from None
    return wider


def _pandas_read(path: Path, fmt: TableFormat, raw: FileBytes,
                 options: dict[str, Any]) -> tuple[pd.DataFrame, bool]:
    """Parse with pandas from a fresh (decompressed, limited) stream; also return whether pandas
    warned that it dropped fields (rows longer than the header)."""
    with _decompressed(path, fmt, raw) as stream, \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = pd.read_csv(io.BufferedReader(stream, _CHUNK), encoding="utf-8",
                            compression=None, index_col=False, **options)
    lost = any(issubclass(w.category, pd.errors.ParserWarning)
               and "does not match length of data" in str(w.message) for w in caught)
    return table, lost


@contextmanager
def csv_failures(path: Path, fmt: TableFormat) -> Iterator[None]:
    """Turn the failures of reading the text table ``path`` (pandas, :mod:`csv`, the
    decompressors) into one-line DataErrors naming the file."""
    where = _where(path)
    try:
        yield
    except pd.errors.EmptyDataError:
        raise DataError(f"{where}: the file is empty (no header and no data rows)") from None
    except _DECOMPRESSION_ERRORS as exc:
        kind = f"the {fmt.compression} data" if fmt.compression else "the file"
        raise DataError(f"{where}: cannot read {kind} "
                        f"({printable(exc, 200) or type(exc).__name__})") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, OverflowError,
            csv.Error) as exc:
        reason = printable(str(exc).strip().splitlines()[0] if str(exc).strip() else
                           type(exc).__name__, 200)
        raise DataError(f"{where}: cannot be parsed as CSV: {reason}") from None


@dataclass(frozen=True)
class CheckedText:
    """A text table that passed the first pass (:func:`checked_text`): its separator, the
    number of fields of its first line (or of the given names), how a message names that
    number, the lines counted (newlines + 1), the options of :func:`pandas.read_csv` and the
    lines skipped before the header (1 after Excel's ``sep=`` line)."""

    sep: str
    n_fields: int
    what: str
    lines: int
    header: bool
    skipinitialspace: bool
    options: dict[str, Any]
    skiprows: int = 0


_EXCEL_SEP = re.compile(r"\A\ufeff?sep=(.?)[ \t]*(?:\r\n|\n|\r|\Z)", re.IGNORECASE)
_EXCEL_SEPARATORS = {",": ",", ";": ";", "\t": "\t", "|": "|"}


def _excel_separator(path: Path, head: bytes) -> str | None:
    """The separator named by Excel's first line ``sep=X``, or None without such a line."""
    text = head[:64].decode("utf-8", errors="replace")
    found = _EXCEL_SEP.match(text)
    if found is None:
        return None
    named = found.group(1)
    if named not in _EXCEL_SEPARATORS:
        shown = repr(named) if named else "nothing"
        raise DataError(f"{_where(path)}: line 1: Excel's separator line 'sep=' names {shown}, "
                        "not a separator uqval reads (comma, semicolon, tab or bar); fix the "
                        "line or remove it")
    return _EXCEL_SEPARATORS[named]


def checked_text(path: Path, fmt: TableFormat, *, header: bool = True,
                 names: Sequence[str] | None = None, skipinitialspace: bool = False,
                 duplicate_hint: str = "rename them", raw: FileBytes | None = None
                 ) -> CheckedText:
    """The first pass over a text table (size, NUL bytes, UTF-8, line lengths), its separator
    and the checks of its header line; call inside :func:`csv_failures`. ``raw``: the file's
    bytes across the passes of one command (module docstring, "Provenance")."""
    facts = _check_text(path, fmt, FileBytes(path) if raw is None else raw)
    excel = _excel_separator(path, facts.head)
    skiprows = 0 if excel is None else 1
    head = facts.head
    if excel is not None:
        cut = _first_break(head)
        head = head[cut + (2 if head[cut:cut + 2] == b"\r\n" else 1):] if cut >= 0 else b""
    sep = excel or fmt.separator or _sniff(path, head)
    first = _first_record(path, head, sep, skipinitialspace)
    if header and names is None:
        _check_names(path, first, duplicate_hint)
    n_fields = len(names) if names is not None else len(first)
    what = ("the names given list" if names is not None
            else "the header has" if header else "the first line has")
    options: dict[str, Any] = {
        "sep": sep, "header": 0 if header else None, "skipinitialspace": skipinitialspace}
    if skiprows:
        options["skiprows"] = skiprows
    if names is not None:
        options["names"] = list(names)
    return CheckedText(sep, n_fields, what, facts.lines, header, skipinitialspace, options,
                       skiprows)


def extra_fields_options(path: Path, fmt: TableFormat, checked: CheckedText,
                         raw: FileBytes | None = None) -> dict[str, Any]:
    """When pandas reported rows longer than the header: raise a DataError naming the first
    row whose extra fields are not all empty, else return the options that read the table
    without its (empty) extra fields."""
    if not _locate_extra_fields(path, fmt, FileBytes(path) if raw is None else raw, checked):
        raise DataError(f"{_where(path)}: some rows have more than {checked.n_fields} fields "
                        f"({checked.what} {checked.n_fields}); they would be cut")
    return {**checked.options, "usecols": range(checked.n_fields)}


def read_csv_table(path: Path, *, header: bool = True, names: Sequence[str] | None = None,
                   skipinitialspace: bool = False, duplicate_hint: str = "rename them",
                   raw: FileBytes | None = None) -> pd.DataFrame:
    """The text table in ``path`` under the rules of the module docstring.

    ``header``: the first line holds the column names (replaced by ``names`` if given);
    ``names`` name the columns of a file without header line; ``skipinitialspace`` ignores
    spaces after a separator. Column names are returned as text. ``raw``: give a
    :class:`FileBytes` to learn the SHA-256 of the bytes parsed (its ``sha256``).
    """
    path = Path(path)
    where = _where(path)
    fmt = table_format(path)
    if fmt.kind != "csv":
        raise DataError(f"{where}: not a text table (CSV or TSV)")
    raw = FileBytes(path) if raw is None else raw
    with csv_failures(path, fmt):
        checked = checked_text(path, fmt, header=header, names=names,
                               skipinitialspace=skipinitialspace, duplicate_hint=duplicate_hint,
                               raw=raw)
        try:
            table, lost = _pandas_read(path, fmt, raw, checked.options)
        except pd.errors.ParserError as exc:
            if not _EXPECTED_FIELDS.search(str(exc)):
                raise
            lost = True
        if lost:
            table, _ = _pandas_read(path, fmt, raw, extra_fields_options(path, fmt, checked, raw))
    if len(table) == 0:
        raise DataError(f"{where}: the file has a header but no data rows" if header
                        else f"{where}: the file has no data rows")
    table.columns = [str(c) for c in table.columns]
    return table


def parquet_file(path: Path, raw: FileBytes | None = None) -> Any:
    """``pyarrow.parquet.ParquetFile(path)`` once its metadata passed the size limit (module
    docstring); call inside :func:`parquet_failures`. The file is first hashed whole through
    ``raw`` (module docstring, "Provenance"): call ``raw.verify()`` once it was read."""
    where = _where(path)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise DataError(f"{where}: reading Parquet needs pyarrow (pip install pyarrow), "
                        "or save the table as CSV") from None
    (FileBytes(path) if raw is None else raw).hash_whole()
    with parquet_failures(path):
        parquet = pq.ParquetFile(path)
        meta = parquet.metadata
        announced = max(
            sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)),
            meta.num_rows * meta.num_columns * 8)
        limit = decompressed_limit(path.stat().st_size)
        if announced > limit:
            raise DataError(f"{where}: its metadata announce {_size_text(announced)} of "
                            f"values, more than the {_size_text(limit)} allowed for a "
                            f"{_size_text(path.stat().st_size)} file; save it as plain CSV "
                            "if the table is genuine")
    return parquet


@contextmanager
def parquet_failures(path: Path, raw: FileBytes | None = None) -> Iterator[None]:
    """Turn pyarrow's failures (ArrowInvalid, OSError, ...) into a one-line DataError; one
    caused by a change of the file since ``raw`` hashed it says so."""
    try:
        yield
    except DataError:
        raise
    except Exception as exc:  # pyarrow raises its own types (ArrowInvalid, OSError, ...)
        if raw is not None and raw.changed():
            raise changed_error(path) from None
        reason = printable(str(exc).strip().splitlines()[0] if str(exc).strip() else
                           type(exc).__name__, 200)
        raise DataError(f"{_where(path)}: cannot read the Parquet file ({reason})") from None


def _read_parquet(path: Path, raw: FileBytes | None = None) -> pd.DataFrame:
    raw = FileBytes(path) if raw is None else raw
    parquet_file(path, raw)
    with parquet_failures(path, raw):
        table = pd.read_parquet(path)
    raw.verify()
    table.columns = [str(c) for c in table.columns]
    _check_names(path, list(table.columns), "rename them")
    if table.empty:
        raise DataError(f"{_where(path)}: the table has no rows")
    return table


def read_table(path: Path, raw: FileBytes | None = None) -> pd.DataFrame:
    """The table in ``path`` for the command line: Parquet (``.parquet``/``.pq``, needs
    pyarrow) or a text table with a header line (:func:`read_csv_table`); ``raw`` as there."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"{_where(path)}: file not found")
    if not path.is_file():
        raise DataError(f"{_where(path)}: not a file")
    try:
        if table_format(path).kind == "parquet":
            return _read_parquet(path, raw)
        return read_csv_table(path, raw=raw)
    except OSError as exc:  # e.g. permission denied
        raise DataError(f"{_where(path)}: cannot read the file "
                        f"({printable(exc.strerror or exc, 200)})") from None


def require_columns(table: Any, columns: Sequence[str], path: Path) -> None:
    """Raise a :class:`DataError` naming the first missing column of ``table`` (a DataFrame or
    a :class:`uqval._internal.batched.ColumnTable`) and the available ones."""
    for col in columns:
        if col not in table.columns:
            names = [printable(c) for c in table.columns[:30]]
            more = f", ... ({len(table.columns) - 30} more)" if len(table.columns) > 30 else ""
            raise DataError(f"{_where(path)}: no column '{printable(col)}' "
                            f"(available: {', '.join(names)}{more})")
