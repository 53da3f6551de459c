// The partner nodes of a real node catalog: `GET /api/object_info` of ComfyUI 0.33.0 (August
// 2026, started on CPU with no model files), reduced to its 226 partner-API nodes (`api_node:
// true`, 222 with a `price_badge`), tooltips left out and every other field of theirs kept as sent.
import { readFileSync } from 'node:fs';

/** The reduced catalog, parsed anew for each caller (tests may edit their copy). */
export function partnerCatalog(): Record<string, PartnerDefinition> {
  return JSON.parse(readFileSync(new URL('./fixtures/partner-nodes-0.33.0.json', import.meta.url), 'utf8')) as Record<string, PartnerDefinition>;
}

/** One node definition of the catalog, as far as these tests read it. */
export interface PartnerDefinition {
  input: { required?: Record<string, [unknown, Record<string, unknown>?]>; optional?: Record<string, [unknown, Record<string, unknown>?]> };
  display_name?: string;
  api_node: true;
  price_badge?: { engine?: string; depends_on?: { widgets?: Array<{ name: string; type: string }>; inputs?: string[]; input_groups?: string[] }; expr: string };
  [key: string]: unknown;
}
