// Text rewrites the web UI applies to widget values when it makes a prompt: dynamic prompts
// (`{a|b}` choices, comments stripped; processDynamicPrompt of the frontend's formatUtil) and
// the `%node.widget%` / `%date:...%` replacements of save nodes' file name prefixes
// (utils/searchAndReplace applyTextReplacements).
import type { Graph, GraphNode } from './model.js';

/** Resolves `{a|b|c}` choices with `random`, strips `//` and `/* *\/` comments, keeps `\{ \| \}` escapes literal. */
export function processDynamicPrompt(text: string, random: () => number): string {
  const input = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*/g, '');
  let i = 0;
  const escape = () => `\\${input[i++] ?? ''}`;
  const choice = (): string => {
    const options: string[] = [];
    let current = '';
    let depth = 0;
    while (i < input.length) {
      const char = input[i++]!;
      if (char === '\\') {
        current += escape();
        continue;
      } else if (char === '{') depth++;
      else if (char === '}') {
        if (!depth) break;
        depth--;
      } else if (char === '|' && !depth) {
        options.push(current);
        current = '';
        continue;
      }
      current += char;
    }
    options.push(current);
    return processDynamicPrompt(options[Math.floor(random() * options.length)] ?? '', random);
  };
  let result = '';
  while (i < input.length) {
    const char = input[i++]!;
    if (char === '\\') result += escape();
    else if (char === '{') result += choice();
    else result += char;
  }
  return result.replace(/\\([{}|])/g, '$1');
}

const DATE_PARTS: Record<string, (date: Date) => number> = { d: (d) => d.getDate(), M: (d) => d.getMonth() + 1, h: (d) => d.getHours(), m: (d) => d.getMinutes(), s: (d) => d.getSeconds() };

function formatDate(format: string, date: Date): string {
  return format.replace(/dd?|MM?|hh?|mm?|ss?|yyy?y?/g, (token) => {
    if (token === 'yy') return String(date.getFullYear()).substring(2);
    if (token === 'yyyy') return String(date.getFullYear());
    const part = DATE_PARTS[token[0]!];
    return part ? String(part(date)).padStart(token.length, '0') : token;
  });
}

/** Every node of the graph and of the subgraphs its nodes expand to, subgraphs first (mapAllNodes). */
export function allNodes(graph: Graph, out: GraphNode[] = [], seen = new Set<Graph>()): GraphNode[] {
  if (seen.has(graph)) return out;
  seen.add(graph);
  for (const node of graph.nodes) {
    if (node.subgraph) allNodes(node.subgraph.graph, out, new Set(seen));
    out.push(node);
  }
  return out;
}

/** `%Node name.widget%` becomes that widget's value (file-name-safe), `%date:yyyy-MM-dd%` the date. */
export function applyTextReplacements(graph: Graph, value: string, now: Date): string {
  const nodes = allNodes(graph);
  return value.replace(/%([^%]+)%/g, (match, text: string) => {
    const split = text.split('.');
    if (split.length !== 2) return split[0]!.startsWith('date:') ? formatDate(split[0]!.substring(5), now) : match;
    const [name, widgetName] = split as [string, string];
    const found = nodes.find((node) => node.properties['Node name for S&R'] === name) ?? nodes.find((node) => node.title === name);
    const widget = found?.widgets.find((candidate) => candidate.name === widgetName);
    if (!widget) return match;
    // eslint-disable-next-line no-control-regex -- the characters file names cannot hold
    return String(widget.value ?? '').replaceAll(/[/?<>\\:*|"\x00-\x1F\x7F]/g, '_');
  });
}
