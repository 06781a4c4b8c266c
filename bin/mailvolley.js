#!/usr/bin/env node
// The bundle of dist/src (scripts/bundle.mjs): a few files to load instead of ~200 modules.
import "../dist/bundle/main.js";
