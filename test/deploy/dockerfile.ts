// The Dockerfile and .dockerignore as the deployment tests read them, without docker: the stages
// with their instructions (continuation lines joined, comments dropped), the exec-form arrays of
// ENTRYPOINT and CMD, and the build context's exclusion rules (Docker's: a pattern that matches
// a directory drops everything under it, `**` crosses folders, the last matching line wins and
// `!` keeps a path again).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DOCKERFILE = fileURLToPath(new URL('../../Dockerfile', import.meta.url));
export const DOCKERIGNORE = fileURLToPath(new URL('../../.dockerignore', import.meta.url));

interface Instruction {
  /** Upper case: FROM, COPY, RUN, ... */
  readonly keyword: string;
  /** The rest of the line, continuation lines joined. */
  readonly args: string;
}

export interface Stage {
  /** The name after `AS`, or null. */
  readonly name: string | null;
  readonly instructions: readonly Instruction[];
}

export function readStages(file = DOCKERFILE): Stage[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const instructions: Instruction[] = [];
  let pending = '';
  for (const line of lines) {
    if (pending === '' && /^\s*(#|$)/.test(line)) continue;
    // Comment lines inside a continued instruction are dropped too, as Docker does.
    if (/^\s*#/.test(line)) continue;
    const continued = /\\\s*$/.test(line);
    pending += `${continued ? line.replace(/\\\s*$/, '') : line} `;
    if (continued) continue;
    const match = /^\s*(\w+)\s+(.*?)\s*$/.exec(pending)!;
    instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]! });
    pending = '';
  }
  const stages: { name: string | null; instructions: Instruction[] }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const named = /\s+AS\s+(\S+)$/i.exec(instruction.args);
      stages.push({ name: named ? named[1]! : null, instructions: [] });
    }
    if (stages.length === 0) throw new Error(`Dockerfile: ${instruction.keyword} before the first FROM`);
    stages.at(-1)!.instructions.push(instruction);
  }
  return stages;
}

/** An exec-form (JSON array) ENTRYPOINT or CMD of the stage; throws on the shell form. */
export function execForm(stage: Stage, keyword: 'ENTRYPOINT' | 'CMD'): string[] {
  const found = stage.instructions.filter((i) => i.keyword === keyword).at(-1);
  if (!found) throw new Error(`Dockerfile: the stage has no ${keyword}`);
  const value: unknown = JSON.parse(found.args);
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new Error(`Dockerfile: ${keyword} is not an exec-form array: ${found.args}`);
  }
  return value;
}

/** The stage's `ENV KEY=VALUE ...` settings (the form the Dockerfile uses). */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of stage.instructions.filter((i) => i.keyword === 'ENV')) {
    for (const pair of args.split(/\s+/)) {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`Dockerfile: ENV ${args} is not KEY=VALUE`);
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}

/** The sources of the stage's COPY lines from the build context (not `--from` another stage). */
export function contextCopies(stage: Stage): string[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.args))
    .flatMap((i) => {
      const words = i.args.split(/\s+/).filter((word) => !word.startsWith('--'));
      return words.slice(0, -1).map((source) => source.replace(/^\.\//, '').replace(/\/$/, ''));
    });
}

function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Whether the build context leaves `path` (relative to the repository root, `/` separated) out. */
export function ignoredBy(rulesText: string): (path: string) => boolean {
  const rules = rulesText
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const keep = line.startsWith('!');
      const pattern = (keep ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
      return { keep, match: globToRegExp(pattern) };
    });
  return (path) => {
    // A rule matching any folder on the way to the file applies to the file.
    const parts = path.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const rule of rules) {
      if (prefixes.some((prefix) => rule.match.test(prefix))) ignored = !rule.keep;
    }
    return ignored;
  };
}
