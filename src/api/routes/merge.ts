import type { Services } from '../../services.js';
import { findAndReplaceBodySchema, mergeBodySchema } from '../requests/schemas.js';
import { accountOf } from '../auth.js';
import {
  asyncQueryProperties,
  pdfOutputQueryProperties,
  booleanQuerySchema,
  dataCheckSchema,
  errorResponses,
  jobSchema,
  templateInfoSchema,
  templateNameQuery,
  templateSyntaxProperty,
} from '../schemas.js';
import {
  mergeFields,
  templateOf,
  parseFindAndReplaceRequest,
  parseInfoRequest,
  parseMergeRequest,
  parsePreviewRequest,
} from '../requests/documents.js';
import { answerAsJob, wantsJob } from './jobs.js';
import { queryOf, answerDocuments, imageFiles, returnFiles, sendJson, type Api } from '../wire.js';

export function mergeRoutes(app: Api, services: Services): void {
  const { door } = services;

  app.post(
    '/document/merge',
    {
      config: { keepAsText: 'mergeData' },
      schema: {
        tags: ['document'],
        summary: 'Merge JSON data into a template',
        description:
          'One document per record, or all records appended into one (append=true, the default). The template is stored (templateName) or sent as Base64 in the body.',
        querystring: {
          type: 'object',
          properties: {
            returnFormat: { type: 'string', description: 'PDF, PDFA, DOCX, DOC, RTF, HTML or TXT' },
            templateName: { type: 'string' },
            ...templateSyntaxProperty,
            templateVersion: {
              type: 'string',
              description: 'A version of the stored template (GET /v1/templates/versions; docsmith); absent: the current one',
            },
            append: booleanQuerySchema,
            ...pdfOutputQueryProperties,
            einvoice: {
              type: 'string',
              description:
                'factur-x or zugferd (docsmith): PDF/A-3 e-invoices with the invoice XML attached as factur-x.xml, sent as einvoiceXml or built from each record (EN 16931 BASIC); one invoice per document',
            },
            test: booleanQuerySchema,
            ...asyncQueryProperties,
          },
          required: ['returnFormat'],
        },
        body: mergeBodySchema,
        response: { 200: { type: 'array', items: { type: 'string' } }, 202: jobSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const query = queryOf(request);
      const work = parseMergeRequest(query, request.body, services.config.limits.maxRecords);
      const account = accountOf(request);
      if (wantsJob(query)) return answerAsJob(services, reply, account, work, query);
      return answerDocuments(reply, (options) => door.perform(account, work, options), returnFiles(services.workers, work.format));
    },
  );

  // A docsmith extension for the portal's playground: one merge, its pages as images, one document.
  app.post(
    '/document/preview',
    {
      config: { keepAsText: 'mergeData' },
      schema: {
        tags: ['document'],
        summary: 'Merge JSON data into a template and return the pages of the result as images (docsmith extension)',
        description:
          'All records are appended into one document. Counts one document (none with test=true). Takes the thumbnail parameters: zoomFactor, fromPage, toPage, imageFormat.',
        querystring: {
          type: 'object',
          properties: {
            templateName: { type: 'string' },
            ...templateSyntaxProperty,
            test: booleanQuerySchema,
            zoomFactor: { type: 'string' },
            fromPage: { type: 'string' },
            toPage: { type: 'string' },
            imageFormat: { type: 'string' },
          },
        },
        body: mergeBodySchema,
        response: { 200: { type: 'array', items: { type: 'string', description: 'A page image as Base64' } }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const work = parsePreviewRequest(queryOf(request), request.body, services.config.limits.maxRecords);
      return answerDocuments(
        reply,
        (options) => door.perform(accountOf(request), work, options),
        imageFiles(services.workers, work.view.format),
      );
    },
  );

  app.post(
    '/document/findandreplace',
    {
      schema: {
        tags: ['document'],
        summary: 'Replace texts in a template',
        description:
          'Each pair replaces every occurrence, in order, in body, tables, headers, footers, notes and text boxes; matches across runs keep the formatting of their first character.',
        querystring: {
          type: 'object',
          properties: {
            returnFormat: { type: 'string' },
            templateName: { type: 'string' },
            test: booleanQuerySchema,
            ...pdfOutputQueryProperties,
          },
          required: ['returnFormat'],
        },
        body: findAndReplaceBodySchema,
        response: { 200: { type: 'string', description: 'The document as Base64' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const work = parseFindAndReplaceRequest(queryOf(request), request.body);
      return answerDocuments(
        reply,
        (options) => door.perform(accountOf(request), work, options),
        returnFiles(services.workers, work.format),
      );
    },
  );

  app.post(
    '/document/checkdata',
    {
      config: { keepAsText: 'mergeData' },
      schema: {
        tags: ['document'],
        summary: 'Check merge data against a template: what it leaves empty, what the template never reads (docsmith extension)',
        description:
          'Looks up every merge field and block of the template in each record as a merge would, and makes no document (not counted). Records are numbered from 0.',
        'x-codeSamples': [
          {
            lang: 'shell',
            source:
              'curl $A -X POST "$B/v1/document/checkdata?templateName=invoice.docx" -d \'{"mergeData":[{"customer":"ACME","items":[{"name":"Bolt"}]}]}\'',
          },
        ],
        querystring: { type: 'object', properties: { templateName: { type: 'string' }, ...templateSyntaxProperty } },
        body: mergeBodySchema,
        response: { 200: dataCheckSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const query = queryOf(request);
      const { records, options } = mergeFields(request.body, services.config.limits.maxRecords);
      const work = {
        kind: 'checkData' as const,
        records,
        ...(options.complement ? { complement: options.complement } : {}),
        source: templateOf(query, request.body.template),
      };
      return sendJson(reply, 200, await door.perform(accountOf(request), work));
    },
  );

  app.get(
    '/templates/info',
    {
      schema: {
        tags: ['templates'],
        summary: 'The merge fields and blocks of a stored template',
        querystring: {
          ...templateNameQuery,
          properties: {
            ...templateNameQuery.properties,
            templateVersion: { type: 'string', description: 'A version (GET /v1/templates/versions; docsmith); absent: the current one' },
            ...templateSyntaxProperty,
          },
        },
        response: { 200: templateInfoSchema, ...errorResponses },
      },
    },
    async (request, reply) => sendJson(reply, 200, await door.perform(accountOf(request), parseInfoRequest(queryOf(request)))),
  );
}
