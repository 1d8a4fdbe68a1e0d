import { everyEndpointReadsNothing } from './endpoints.js';

everyEndpointReadsNothing('off');
