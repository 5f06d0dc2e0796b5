#!/usr/bin/env bash
# Writes the seed corpus of each fuzz target from today's fixtures: one input a file, named by the
# first 12 hex digits of its SHA-1 (as libFuzzer names its own), so that running it again adds
# nothing twice. The crashes/ folders are not touched: each holds inputs that once broke a target.
set -euo pipefail
cd "$(dirname "$0")"
fixtures=../../Fixtures

# Each line of the files given becomes one seed of target $1.
lines() {
    local target=$1; shift
    mkdir -p "$target"
    cat "$@" | while IFS= read -r line; do
        [ -n "$line" ] || continue
        name=$(printf '%s' "$line" | sha1sum | cut -c1-12)
        printf '%s' "$line" >"$target/$name"
    done
}

# One seed of target $1 from the bytes printf makes of $2.
seed() {
    mkdir -p "$1"
    local name
    name=$(printf -- "$2" | sha1sum | cut -c1-12)
    printf -- "$2" >"$1/$name"
}

lines command-reader $fixtures/commands/cart-rules.ndjson $fixtures/commands/envelope.ndjson \
    $fixtures/commands/onboarding.ndjson $fixtures/demo.ndjson $fixtures/logs/*.commands.ndjson
seed command-reader '{"type":"cart.addProduct","productId":"p1","unitPrice":12345678901234567890,"quantity":1}'
seed command-reader '{ "type" : "cart.addProduct", "productId":"p\\u00e9","unitPrice":1e2,"quantity":1.0,"meta":{"a":[1,{"b":null}]}}'
seed command-reader '{"type":"cart.removeProduct","stream":null,"productId":"p1","expectedVersion":-9223372036854775808}'

# The record codec's inputs are structured (RecordCodecTarget): an even first byte, a position, a
# chain hash and stored bytes; an odd one, the choices that build and damage a valid record.
seed record-codec '\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
seed record-codec '\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01'
seed record-codec '\x01\x00\x00\x00\x00\x00\x00\x00\x07\x11\x22\x33\x44\x55\x66\x77\x88\x01\x01\x03\x01\x00\x05abcde\x03\x02\x01\x09\x05\x03\x00\x01'
seed record-codec '\x03\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x04\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01'

# Export lines: today's exports and bug fixtures (events), one line a seed.
lines export-line $fixtures/logs/schema-1.ndjson $fixtures/logs/schema-3.ndjson $fixtures/logs/schema-4.ndjson \
    $fixtures/logs/eur-orders.ndjson $fixtures/logs/out-of-range-import.ndjson $fixtures/bugs/*.ndjson
seed export-line '{"position":7,"forgotten":true,"version":2,"eventId":"01a1fe6e-ee5e-767e-ba04-7909b520b3bf","type":"cart.productAdded","actor":"user","timestamp":"2026-11-21T14:07:25Z","schemaVersion":1}'

# JSON texts: answers and states as the command line writes them, and the corners of the grammar.
lines json-value $fixtures/commands/*.answers.ndjson $fixtures/commands/*.states.ndjson
seed json-value '[1,-0,0.5e-3,1E+2,12345678901234567890,-9223372036854775808,1e999,true,false,null,"\\u00e9\\ud83d\\ude00\\n",{}]'
seed json-value '{"a":{"b":{"c":[[[[[[[[]]]]]]]]}},"":""}'
# Numbers that start the text, where the lexer's fast integer and its full number reading are compared.
for number in -9223372036854775808 9223372036854775807 -9223372036854775809 123456789012345678 1234567890123456789 \
    12345678901234567890 00 -0 -1.5e3 7e 1. -; do
    seed json-value "$number"
done

# The CSV export: an event built from the bytes (even first byte), or an export line (odd).
seed csv '\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x00\x03\x01\x02\x03\x04\x05\x06\x07\x08\x01\x02\x03\x04\x05\x06\x07\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x01\x01\x00\x05\x01\x06'
seed csv '\x01{"position":1,"stream":"s","version":1,"eventId":"01a1fe6e-ee5e-767e-ba04-7909b520b3bf","type":"cart.productAdded","actor":"user","timestamp":"2026-11-21T14:07:25.278306Z","data":{"productId":"p1","name":"Tee, \\"quoted\\"\\nline","unitPrice":1250,"quantity":2}}'

# States as the shop's LogDomain conformance writes them (little-endian): format 1, an open cart without lines or
# discounts, navigation, tab 0, then no orders; the same with one order; one order alone; a page.
empty_state='\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02\x00\x03\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00'
seed state-codec "\\x00${empty_state}\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
seed state-codec "\\x00${empty_state}\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02o1\\xe2\\x04\\x00\\x00\\x00\\x00\\x00\\x00\\x03\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
seed state-codec "\\x01${empty_state}\\x05\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
seed state-codec '\x02\xff\x03EUR\x02o1\xe2\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00'
seed state-codec '\x03\x02\x02o1\xe2\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x02o2\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00'

# Decode then fold: a snapshot's bytes or none, then events built from the bytes or export lines.
seed decode-fold '\x00\x01\x00\x01\x02\x03\x04\x05\x06\x07\x08\x01\x02\x03\x04\x05\x06\x07\x08\x01\x02\x03\x04\x05\x06\x07\x08\x00\x00\x00\x05\x01\x01\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x01'
seed decode-fold "\\x01\\x1a${empty_state}\\x00\\x04\\x30{\"position\":1,\"stream\":\"s\",\"version\":1}"

# Token files, PostgreSQL URLs and retention periods: the forms their documentation shows, and corners.
seed token-file '# tokens\n0123456789abcdef0123456789abcdef read,write\n\tfedcba9876543210fedcba98 admin  \n\n'
seed token-file 'short read\n'
seed token-file '0123456789abcdef ,\n'
seed postgres-url 'postgresql://ana:s%%40cret@db.example:6543/shop?schema=tenant_7&sslmode=verify-full&sslrootcert=/etc/ca.pem'
seed postgres-url 'postgres://postgres@%%2Fvar%%2Frun%%2Fpostgresql/flow?host=/tmp/pg&port=5544&password=x'
seed postgres-url 'postgres://[::1]:5432/db?connect_timeout=2.5&application_name=a%%20b'
seed postgres-url 'postgres://u@h/d?connect_timeout=1e10'
for period in 90d 12h 2w 0d 36525d 5218w 876600h 876601h 90 -1d +5d 9999999999999999999d ' 9d'; do seed retention-period "$period"; done
for address in 127.0.0.1:8080 '[::1]:9464' 0.0.0.0:0 localhost:65535 host:65536 :80 '[]:80' '[[]]:80' 'a:b:1' 127.0.0.1:-1 '127.0.0.1: 8'; do seed listen-address "$address"; done
for header in 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-more \
    00-00000000000000000000000000000000-00f067aa0ba902b7-01 00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01 \
    00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01 ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 \
    00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7; do
    seed traceparent "$header"
done
