#!/bin/sh
# First start on an empty volume: a cluster whose superuser is POSTGRES_USER (password
# POSTGRES_PASSWORD, required over the network), and the database POSTGRES_DB. Then PostgreSQL runs
# as PID 1.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres-entrypoint: set POSTGRES_PASSWORD" >&2
    exit 2
  fi
  password_file=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$password_file"
  initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$password_file" \
    --encoding=UTF8 --locale=C.UTF-8 --auth-local=peer --auth-host=scram-sha-256 >/dev/null
  rm -f "$password_file"
  # Inside the container: peer for the socket (pg_dump, psql via exec); anywhere else a password.
  {
    echo "local all all peer map=container"
    echo "host all all all scram-sha-256"
  } >"$PGDATA/pg_hba.conf"
  echo "container postgres $POSTGRES_USER" >>"$PGDATA/pg_ident.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\"" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec postgres -D "$PGDATA" "$@"
