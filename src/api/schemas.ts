/** JSON Schema pieces shared by route definitions; they feed validation and /openapi.json. */

export const errorSchema = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
} as const;

export const booleanQuerySchema = {
  type: 'string',
  description: 'true or false (also True, False, 1, 0)',
} as const;

export const templateNameQuery = {
  type: 'object',
  properties: { templateName: { type: 'string', description: 'File name of the template in the storage, e.g. invoice.docx' } },
  required: ['templateName'],
} as const;

export const base64Body = {
  type: 'string',
  description: 'The document as a Base64 string',
} as const;

/** Standard error responses every authenticated endpoint may give. */
export const errorResponses = {
  400: { description: 'Bad input', ...errorSchema },
  403: { description: 'Not authorized, or over a quota or limit', ...errorSchema },
} as const;
