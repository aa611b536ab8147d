#!/usr/bin/env node
// Validates a .gltf or .glb with the Khronos glTF-Validator (npm package `gltf-validator`,
// installed by scripts/setup.sh into $MOTIONLAB_TOOLS, default /var/tmp/motionlab-tools) and
// prints its JSON report. Exit 0: no errors; 1: errors; 2: bad usage or the validator failed.
// Usage: node scripts/gltf-validate.js FILE.gltf|FILE.glb
'use strict';
const fs = require('fs');
const path = require('path');
const tools = process.env.MOTIONLAB_TOOLS || '/var/tmp/motionlab-tools';
const validator = require(path.join(tools, 'node_modules', 'gltf-validator'));

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/gltf-validate.js FILE.gltf|FILE.glb');
  process.exit(2);
}
const full = path.resolve(file);
let data;
try {
  data = fs.readFileSync(full);
} catch (e) {
  console.error(String(e));
  process.exit(2);
}
validator.validateBytes(new Uint8Array(data), {
  uri: path.basename(full),
  maxIssues: 0,
  writeTimestamp: false,
  externalResourceFunction: (uri) => new Promise((resolve, reject) => {
    const p = path.resolve(path.dirname(full), decodeURIComponent(uri));
    fs.readFile(p, (err, buf) => (err ? reject(err.toString()) : resolve(new Uint8Array(buf))));
  }),
}).then((report) => {
  console.log(JSON.stringify(report, null, 2));
  process.exit(report.issues.numErrors > 0 ? 1 : 0);
}, (err) => {
  console.error('the validator failed: ' + err);
  process.exit(2);
});
