#!/usr/bin/env bash
# mib with its TLS trait, run as a user runs it: `mib serve` over HTTPS with a certificate made here, and every
# end-to-end scenario through the pinned transport against it (`mib e2e --pin`), which must pass. Then a wrong
# pin must fail the run at once. Needs `swift build --traits TLS --product mib` first (CI's last step) and openssl.
#   Tools/tls-check.sh [path of mib]
set -euo pipefail
cd "$(dirname "$0")/.."
mib="${1:-.build/debug/mib}"
work="$(mktemp -d)"
chmod 700 "$work"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$work/key.pem" -out "$work/chain.pem" 2>/dev/null
pin=$(openssl x509 -in "$work/chain.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)
backup=$(printf 'backup key' | openssl dgst -sha256 -binary | base64)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

"$mib" serve --port "$port" --database "$work/backend.sqlite" --tls-certificate "$work/chain.pem" --tls-key "$work/key.pem" \
  > "$work/serve.log" 2>&1 &
server=$!
started=""
for _ in $(seq 600); do
  if curl -ksf "https://127.0.0.1:$port/health" > /dev/null 2>&1; then started=1; break; fi
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log"; echo "tls-check: mib serve ended"; exit 1; }
  sleep 0.1
done
[ -n "$started" ] || { cat "$work/serve.log"; echo "tls-check: mib serve did not answer over HTTPS in 60 s"; exit 1; }

echo "== mib e2e over HTTPS, pinned"
"$mib" e2e --server "https://127.0.0.1:$port" --pin "$pin" --pin "$backup"

echo "== a pin the server does not have fails the run"
if "$mib" e2e --server "https://127.0.0.1:$port" --pin "$backup" --pin "$(printf 'other key' | openssl dgst -sha256 -binary | base64)" \
  > "$work/wrong.log" 2>&1; then
  cat "$work/wrong.log"; echo "tls-check: e2e passed with pins the server does not have"; exit 1
fi
echo "refused: $(tail -1 "$work/wrong.log")"
