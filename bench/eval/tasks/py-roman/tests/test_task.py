import unittest
from roman import to_roman

class T(unittest.TestCase):
    def test_values(self):
        for n, r in [(1, 'I'), (4, 'IV'), (9, 'IX'), (14, 'XIV'), (90, 'XC'), (1994, 'MCMXCIV'), (3999, 'MMMCMXCIX')]:
            self.assertEqual(to_roman(n), r)
    def test_range(self):
        with self.assertRaises(ValueError):
            to_roman(0)
