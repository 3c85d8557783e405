// Notes on contacts (issue 21): written and read through v1.
import { notesPersonalData } from './notes.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { NoteCreated } from './notes.events.ts';
import { notesRoutes } from './notes.routes.ts';
import { notesSchemas } from './notes.schema.ts';

export { addNote } from './notes.service.ts';

/** The notes feature's manifest (src/features.ts lists it). */
export const notesFeature = defineFeature({
  name: 'notes',
  personalData: notesPersonalData,
  examples: {
    ids: {
      contactId: 'ct',
    },
    fields: {
      body: 'Hola Lucía, ¿le viene bien la visita del jueves a las 11:00?',
    },
  },
  schemas: notesSchemas,
  routes: [notesRoutes],
  events: [NoteCreated],
});
