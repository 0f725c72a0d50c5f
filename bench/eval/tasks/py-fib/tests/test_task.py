import signal
import unittest

signal.alarm(10)  # the slow fib never ends: fail in 10 s
from fib import fib

class T(unittest.TestCase):
    def test_values(self):
        self.assertEqual([fib(i) for i in range(8)], [0, 1, 1, 2, 3, 5, 8, 13])
        self.assertEqual(fib(80), 23416728348467685)
