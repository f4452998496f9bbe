# CI steps for a repo whose package.json lists parley-agents (so `npm ci` installed it):
# each command exits 1 when a file is invalid, printing file/pointer: reason for each problem.
set -e
npx parley validate --schema task fixtures/*.task.json
npx parley validate --schema message fixtures/*.message.json
