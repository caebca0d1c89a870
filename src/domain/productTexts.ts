// The texts a product is embedded from, and their hash: a product is embedded again only when it changes.
import { hash } from 'node:crypto';
import type { ProductTexts, ProductTextSources, StoredProduct } from '../store/products.js';
import type { ProductInput } from './productDocs.js';

/**
 * The embedding texts an input gives explicitly; the others are generated from the product. Only
 * the texts of the vectors search ranks by are embedded: embedding_text_properties and
 * embedding_text_attributes are stored with the product but embed nothing (docs/API.md).
 */
export function textSources(input: ProductInput): ProductTextSources {
  const sources: ProductTextSources = {};
  if (input.embedding_text_description != null) sources.description = input.embedding_text_description;
  if (input.similarity_text?.trim()) sources.anchor = input.similarity_text;
  return sources;
}

/** The texts a product is embedded from: each given one as it is, else title + description. */
export function productTexts(doc: Pick<StoredProduct, 'title' | 'description'>, sources: ProductTextSources): ProductTexts {
  return {
    description: sources.description ?? [doc.title, doc.description].filter(Boolean).join('\n'),
    anchor: sources.anchor ?? null,
  };
}

export const embeddingTexts = (input: ProductInput, sources = textSources(input)): ProductTexts =>
  productTexts({ title: input.title, description: input.description ?? null }, sources);

export const textsHash = (texts: ProductTexts, language: string): string =>
  hash('sha256', JSON.stringify([language, texts.description, texts.anchor]), 'hex');
