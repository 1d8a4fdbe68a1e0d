import { everyEndpointReadsNothing } from './endpoints.js';

everyEndpointReadsNothing('bubblewrap');
