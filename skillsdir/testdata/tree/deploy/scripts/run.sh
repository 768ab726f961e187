#!/bin/sh
# Served as text, never executed.
echo deploying "$1"
