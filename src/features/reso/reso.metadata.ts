// The service's CSDL document (`$metadata`, OData CSDL XML 4.0) and its service document, both built
// from the field types of reso.fields.ts, so what the metadata says is what the records and `$filter`
// do. Lookups are `Edm.String` with RESO's LookupName annotation (DD 1.7+ string lookups, the values
// DD 2.0 transmits, such as `Active Under Contract`), not `Edm.EnumType` (decision 0258).
import { XMLBuilder } from 'fast-xml-parser';
import {
  LOOKUP_FIELD_TYPES,
  MEDIA_FIELD_TYPES,
  PROPERTY_FIELD_TYPES,
  type FieldType,
} from './reso.fields.ts';
import { RESO_FIELDS } from './reso.mapping.ts';

/** The schema namespace of our entity types (RESO's reference metadata uses the same). */
export const NAMESPACE = 'org.reso.metadata';
/** The namespace of RESO's annotation terms, declared in the document so it stands alone. */
const RESO_TERMS = 'RESO.OData.Metadata';
export const SERVICE_ROOT = '/v1/reso';
/** The entity sets a client may query (Media live inside Property). */
const ENTITY_SETS = ['Property', 'Lookup'] as const;

type Node = Record<string, unknown>;

function propertyOf(name: string, type: FieldType): Node {
  const node: Node = { '@_Name': name, '@_Type': type.edm };
  if (!type.nullable) node['@_Nullable'] = 'false';
  for (const [facet, value] of Object.entries(type.facets ?? {})) node[`@_${facet}`] = value;
  if (type.lookupName !== undefined) {
    node.Annotation = { '@_Term': `${RESO_TERMS}.LookupName`, '@_String': type.lookupName };
  }
  return node;
}

function entityType(name: string, key: string, fields: Record<string, FieldType>, extra: Node = {}): Node {
  return {
    '@_Name': name,
    Key: { PropertyRef: { '@_Name': key } },
    Property: Object.entries(fields).map(([field, type]) => propertyOf(field, type)),
    ...extra,
  };
}

/** The Property fields in record order (Media is the navigation property). */
const propertyFields = Object.fromEntries(
  RESO_FIELDS.filter((field) => field !== 'Media').map((field) => [
    field,
    PROPERTY_FIELD_TYPES[field as keyof typeof PROPERTY_FIELD_TYPES],
  ]),
);

function buildMetadata(): string {
  const document = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    'edmx:Edmx': {
      '@_Version': '4.0',
      '@_xmlns:edmx': 'http://docs.oasis-open.org/odata/ns/edmx',
      'edmx:DataServices': {
        Schema: [
          {
            '@_Namespace': NAMESPACE,
            '@_xmlns': 'http://docs.oasis-open.org/odata/ns/edm',
            EntityType: [
              entityType('Property', 'ListingKey', propertyFields, {
                // Media live inside their listing: no entity set of their own.
                NavigationProperty: {
                  '@_Name': 'Media',
                  '@_Type': `Collection(${NAMESPACE}.Media)`,
                  '@_ContainsTarget': 'true',
                },
              }),
              entityType('Media', 'MediaKey', MEDIA_FIELD_TYPES),
              entityType('Lookup', 'LookupKey', LOOKUP_FIELD_TYPES),
            ],
            EntityContainer: {
              '@_Name': 'Default',
              EntitySet: ENTITY_SETS.map((name) => ({
                '@_Name': name,
                '@_EntityType': `${NAMESPACE}.${name}`,
              })),
            },
          },
          {
            '@_Namespace': RESO_TERMS,
            '@_xmlns': 'http://docs.oasis-open.org/odata/ns/edm',
            Term: {
              '@_Name': 'LookupName',
              '@_Type': 'Edm.String',
              '@_AppliesTo': 'Property',
            },
          },
        ],
      },
    },
  };
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    suppressEmptyNode: true,
    // `ContainsTarget="true"`, never the bare attribute (not XML).
    suppressBooleanAttributes: false,
  });
  return builder.build(document) as string;
}

let metadata: string | null = null;

/** GET /v1/reso/$metadata: the CSDL XML document (built once: it depends on nothing but the code). */
export function metadataDocument(): string {
  metadata ??= buildMetadata();
  return metadata;
}

/** GET /v1/reso: the service document (OData JSON §5), the entity sets a client may query. */
export function serviceDocument(origin: string) {
  return {
    '@odata.context': `${origin}${SERVICE_ROOT}/$metadata`,
    value: ENTITY_SETS.map((name) => ({ name, kind: 'EntitySet' as const, url: name })),
  };
}
