#!/bin/sh
# Revokes every grant whose access names a wallet address (an account that closes), from a back end with an
# `operator` API key, over the REST form (docs/protocol.md §2.18; the OpenAPI document is at $GNAP_URL/api/v1/openapi.json).
# Needs curl (7.76 or later) and jq.
#
#   GNAP_URL=https://auth.wallet.example GNAP_API_KEY=gnap_ak_… examples/revoke-by-wallet-address.sh https://wallet.example/alice
#
# The key comes from the environment, not the command line, so it stays out of the process list and shell history;
# curl reads the header from standard input for the same reason.
set -eu

if [ $# -ne 1 ] || [ -z "${GNAP_URL:-}" ] || [ -z "${GNAP_API_KEY:-}" ]; then
  echo 'usage: GNAP_URL=<server> GNAP_API_KEY=<operator key> revoke-by-wallet-address.sh <wallet address>' >&2
  exit 2
fi
wallet_address=$1
api="${GNAP_URL%/}/api/v1"

# POST to the REST form with the key; prints the JSON answer, fails (with the answer on stderr) on an error status.
call() {
  printf 'authorization: Bearer %s\n' "$GNAP_API_KEY" |
    curl --silent --show-error --fail-with-body --header @- --header 'content-type: application/json' --request POST --data "$2" "$api$1"
}

revoked=0
cursor=null
while :; do
  query=$(jq -n --arg w "$wallet_address" --argjson c "$cursor" '{filters: {walletAddress: $w}, limit: 100, cursor: $c}')
  page=$(call /grants/search "$query")
  # Already revoked or rejected grants are skipped.
  for id in $(printf '%s' "$page" | jq -r '.items[] | select(.state != "finalized" or .finalizedReason == "issued") | .id'); do
    result=$(call "/grants/$id/revoke" '')
    echo "revoked grant $id ($(printf '%s' "$result" | jq -r .revokedTokens) live token(s))"
    revoked=$((revoked + 1))
  done
  cursor=$(printf '%s' "$page" | jq -c .nextCursor)
  [ "$cursor" = null ] && break
done
echo "$revoked grant(s) naming $wallet_address revoked"
