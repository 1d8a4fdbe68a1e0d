// Data handed to the playground for a template (the sample's own data), taken once when it opens.
const OFFERED = 'docsmith.offeredData:';

export function offerData(template: string, json: string): void {
  sessionStorage.setItem(OFFERED + template, json);
}

export function takeOfferedData(template: string | undefined): string | undefined {
  if (!template) return undefined;
  const json = sessionStorage.getItem(OFFERED + template) ?? undefined;
  sessionStorage.removeItem(OFFERED + template);
  return json;
}
