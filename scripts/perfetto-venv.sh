#!/bin/sh
# Makes the Python environment that decodes Perfetto traces with Perfetto's
# own schema (the `perfetto` package, with `protobuf`), once, in
# target/perfetto-venv, and prints its python's path. Perfetto's
# trace_processor and UI are downloaded at run time from the internet; the
# schema is all the tests need.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib/install.sh
VENV=target/perfetto-venv
if ! "$VENV/bin/python" -c "import perfetto.protos.perfetto.trace.perfetto_trace_pb2" 2>/dev/null; then
    install_package python3-venv python3 -m venv --help
    python3 -m venv "$VENV" >&2
    "$VENV/bin/pip" install -q perfetto protobuf >&2
fi
echo "$(pwd)/$VENV/bin/python"
