echo running
